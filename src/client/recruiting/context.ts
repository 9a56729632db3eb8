import type { OrgIdResponse } from "../../contracts/recruiting/org.js";
import { ConfigurationError } from "../core/errors.js";
import type { HttpClient, RequestOptions } from "../core/http-client.js";

/**
 * What every recruiting resource needs: the HTTP core, the API's base URL, and the organisation
 * whose `/org/{org_id}/…` paths to use — given up front, or asked once from `GET /org_id` (the
 * token's own organisation) and remembered.
 */
export class RecruitingContext {
  private org: Promise<string> | null;

  constructor(
    readonly http: HttpClient,
    private readonly apiUrl: string | undefined,
    orgId: string | undefined,
  ) {
    this.org = orgId ? Promise.resolve(orgId) : null;
  }

  get baseUrl(): string {
    if (!this.apiUrl) throw new ConfigurationError("The apiUrl option is needed for the recruiting API");
    return this.apiUrl;
  }

  /** The organisation id (from the options, else `GET /org_id`). */
  orgId(options?: RequestOptions): Promise<string> {
    if (!this.org) {
      const pending = this.fetchOrgId(options).then((r) => r.org_id);
      this.org = pending;
      // A failed lookup is not remembered: the next call asks again.
      pending.catch(() => {
        if (this.org === pending) this.org = null;
      });
    }
    return this.org;
  }

  fetchOrgId(options?: RequestOptions): Promise<OrgIdResponse> {
    return this.http.request({ method: "GET", baseUrl: this.baseUrl, path: "/org_id" }, options);
  }
}
