import type { WebhookEventList, WebhookEventListQuery, WebhookEventRecord } from "../../contracts/proxy/webhook-events.js";
import type { RequestOptions } from "../core/http-client.js";
import { path } from "../core/url.js";
import type { ProxyContext } from "./context.js";

/** The upstream's webhook events as Hirebridge stored them: list the failed ones, re-drive one. */
export class WebhookEventsResource {
  constructor(private readonly ctx: ProxyContext) {}

  /**
   * The organisation's events in one status (default `failed`), newest first, with their error and
   * attempts; `integration_id` narrows to one integration.
   * @example
   * const { items } = await hb.webhookEvents.list({ status: "failed" });
   * for (const e of items) console.log(e.id, e.type, e.attempts, e.last_error);
   */
  list(params: WebhookEventListQuery = {}, options?: RequestOptions): Promise<WebhookEventList> {
    return this.ctx.http.request({ method: "GET", baseUrl: this.ctx.baseUrl, path: "/webhooks/events", query: { ...params } }, options);
  }

  /**
   * Re-drives a failed event: its work runs once more (attempts kept). Answers the event, now
   * `queued`; a NotFoundError when it is not the organisation's, a ConflictError when it is not failed.
   * @example
   * await hb.webhookEvents.redrive(eventId);
   */
  redrive(eventId: string, options?: RequestOptions): Promise<WebhookEventRecord> {
    return this.ctx.http.request({ method: "POST", baseUrl: this.ctx.baseUrl, path: path`/webhooks/events/${eventId}/redrive` }, options);
  }
}
