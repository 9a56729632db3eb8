import type { ActivityItem, ActivityPage, ActivityQuery } from "../../contracts/proxy/activity.js";
import type { WriteBack } from "../../contracts/proxy/webhooks.js";
import type { RequestOptions } from "../core/http-client.js";
import { paginate } from "../core/paginate.js";
import { path } from "../core/url.js";
import type { ProxyContext } from "./context.js";

/**
 * An integration's trail: webhook events, sync runs, write-backs and failed upstream calls, newest
 * first, with the names of what each touched; and the retry of a failed write-back.
 */
export class ActivityResource {
  constructor(private readonly ctx: ProxyContext) {}

  /**
   * One page of the integration's activity (`limit` items, default 50; `next_cursor` for the next).
   * @example
   * const { items } = await hb.activity.list(integrationId, { kind: "write_back", status: "failed" });
   * for (const i of items) console.log(i.summary, i.error);
   */
  list(integrationId: string, query: ActivityQuery = {}, options?: RequestOptions): Promise<ActivityPage> {
    return this.ctx.http.request(
      { method: "GET", baseUrl: this.ctx.baseUrl, path: path`/integrations/${integrationId}/activity`, query },
      options,
    );
  }

  /**
   * Every item of the trail that passes the filter, newest first, fetched a page at a time as you iterate.
   * @example
   * for await (const i of hb.activity.iterate(integrationId, { candidate_id: candidateId })) console.log(i.at, i.summary);
   */
  iterate(
    integrationId: string,
    query: Omit<ActivityQuery, "cursor"> = {},
    options?: RequestOptions,
  ): AsyncGenerator<ActivityItem, void, undefined> {
    return paginate(async (cursor) => {
      const page = await this.list(integrationId, { ...query, ...(cursor ? { cursor } : {}) }, options);
      return { items: page.items, next: page.next_cursor };
    });
  }

  /**
   * Retries a failed write-back: pending again, its job queued, the steps it did not repeated.
   * @example
   * const wb = await hb.activity.retryWriteBack(integrationId, item.id); // wb.state === "pending"
   */
  retryWriteBack(integrationId: string, writeBackId: string, options?: RequestOptions): Promise<WriteBack> {
    return this.ctx.http.request(
      { method: "POST", baseUrl: this.ctx.baseUrl, path: path`/integrations/${integrationId}/write-backs/${writeBackId}/retry` },
      options,
    );
  }
}
