import type { DataRetentionResponse, DataRetentionUpdate } from "../../contracts/recruiting/data-retention.js";
import type { RequestOptions } from "../core/http-client.js";
import { path } from "../core/url.js";
import type { RecruitingContext } from "./context.js";

/**
 * Your organisation's data retention policy (docs/privacy.md, Retention): how long candidates are
 * kept, and when a deleted integration's or a deleted application's data is erased. The retention
 * job erases what becomes due; the ATS's own copy stays yours to erase there.
 */
export class DataRetentionResource {
  constructor(private readonly ctx: RecruitingContext) {}

  /** The policy (its defaults, with `updated_at` null, while it was never set). */
  async get(options?: RequestOptions): Promise<DataRetentionResponse> {
    const org = await this.ctx.orgId(options);
    return this.ctx.http.request({ method: "GET", baseUrl: this.ctx.baseUrl, path: path`/org/${org}/data-retention` }, options);
  }

  /**
   * Changes the fields given (null turns a rule off); answers the policy as stored.
   * @example
   * await hb.dataRetention.put({ candidate_days_after_rejection: 180, candidate_days_after_hire: 365 });
   */
  async put(body: DataRetentionUpdate, options?: RequestOptions): Promise<DataRetentionResponse> {
    const org = await this.ctx.orgId(options);
    return this.ctx.http.request({ method: "PUT", baseUrl: this.ctx.baseUrl, path: path`/org/${org}/data-retention`, body }, options);
  }
}
