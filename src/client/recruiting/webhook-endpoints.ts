import type {
  DeliveryListQuery,
  ResendAnswer,
  ResendFailedAnswer,
  SecretRotation,
  TestEventAnswer,
  WebhookDelivery,
  WebhookDeliveryList,
  WebhookEndpoint,
  WebhookEndpointCreate,
  WebhookEndpointCreated,
  WebhookEndpointList,
  WebhookEndpointUpdate,
  WebhookMessage,
} from "../../contracts/webhooks-out/endpoints.js";
import type { EventType, EventTypeCatalogue } from "../../contracts/webhooks-out/events.js";
import type { RequestOptions } from "../core/http-client.js";
import { path } from "../core/url.js";
import type { RecruitingContext } from "./context.js";

/**
 * Your organisation's webhook endpoints: where Hirebridge POSTs signed events (Standard Webhooks)
 * when candidates, positions, interviews, write-backs, sync runs and integrations change. Check
 * each delivery with `verifyWebhook` before trusting it.
 */
export class WebhookEndpointsResource {
  constructor(private readonly ctx: RecruitingContext) {}

  private async call<T>(method: "GET" | "POST" | "PATCH" | "DELETE", rest: string, options?: RequestOptions, body?: unknown): Promise<T> {
    const org = await this.ctx.orgId(options);
    return this.ctx.http.request(
      { method, baseUrl: this.ctx.baseUrl, path: `${path`/org/${org}`}${rest}`, ...(body === undefined ? {} : { body }) },
      options,
    );
  }

  /**
   * Adds an endpoint. The answer's `secret` is shown this once: keep it to verify deliveries.
   * @example
   * const endpoint = await hb.webhookEndpoints.create({ url: "https://example.com/hooks", event_types: ["candidate.created"] });
   * await saveSecret(endpoint.secret);
   */
  create(body: WebhookEndpointCreate, options?: RequestOptions): Promise<WebhookEndpointCreated> {
    return this.call("POST", "/webhook-endpoints", options, body);
  }

  list(options?: RequestOptions): Promise<WebhookEndpointList> {
    return this.call("GET", "/webhook-endpoints", options);
  }

  get(endpointId: string, options?: RequestOptions): Promise<WebhookEndpoint> {
    return this.call("GET", path`/webhook-endpoints/${endpointId}`, options);
  }

  /** Changes the fields sent; `{ disabled: false }` enables an endpoint again. */
  update(endpointId: string, body: WebhookEndpointUpdate, options?: RequestOptions): Promise<WebhookEndpoint> {
    return this.call("PATCH", path`/webhook-endpoints/${endpointId}`, options, body);
  }

  async delete(endpointId: string, options?: RequestOptions): Promise<void> {
    await this.call<unknown>("DELETE", path`/webhook-endpoints/${endpointId}`, options);
  }

  /** A new secret; the old one keeps signing every delivery too until `previous_secret_expires_at`. */
  rotateSecret(endpointId: string, options?: RequestOptions): Promise<SecretRotation> {
    return this.call("POST", path`/webhook-endpoints/${endpointId}/rotate-secret`, options);
  }

  /** One page of the endpoint's deliveries, newest first, each with its attempts. */
  async deliveries(endpointId: string, query: DeliveryListQuery = {}, options?: RequestOptions): Promise<WebhookDeliveryList> {
    const org = await this.ctx.orgId(options);
    return this.ctx.http.request(
      { method: "GET", baseUrl: this.ctx.baseUrl, path: path`/org/${org}/webhook-endpoints/${endpointId}/deliveries`, query },
      options,
    );
  }

  /** Every delivery of the endpoint, newest first, fetched a page at a time as you iterate. */
  async *iterateDeliveries(
    endpointId: string,
    query: Omit<DeliveryListQuery, "cursor"> = {},
    options?: RequestOptions,
  ): AsyncGenerator<WebhookDelivery, void, undefined> {
    let cursor: string | undefined;
    do {
      const page = await this.deliveries(endpointId, { ...query, ...(cursor ? { cursor } : {}) }, options);
      yield* page.items;
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
  }

  /** One event's delivery to the endpoint: its payload, status and attempts with the headers they were sent with. */
  delivery(endpointId: string, messageId: string, options?: RequestOptions): Promise<WebhookDelivery> {
    return this.call("GET", path`/webhook-endpoints/${endpointId}/deliveries/${messageId}`, options);
  }

  /** Delivers an event to the endpoint again, now, with the same `webhook-id`. */
  resend(endpointId: string, messageId: string, options?: RequestOptions): Promise<ResendAnswer> {
    return this.call("POST", path`/webhook-endpoints/${endpointId}/deliveries/${messageId}/resend`, options);
  }

  /**
   * Sends a signed example event of `eventType` to this endpoint only (as the Stripe CLI's `trigger`):
   * delivered like any event, listed in its deliveries with `test: true`, its body carrying `"test": true`.
   * @example
   * const { message_id } = await hb.webhookEndpoints.sendTestEvent(endpoint.id, "candidate.created");
   */
  sendTestEvent(endpointId: string, eventType: EventType, options?: RequestOptions): Promise<TestEventAnswer> {
    return this.call("POST", path`/webhook-endpoints/${endpointId}/test`, options, { event_type: eventType });
  }

  /**
   * Queues again every delivery to the endpoint that failed, of the events since `since`; answers how many.
   * @example
   * const { queued } = await hb.webhookEndpoints.resendFailed(endpoint.id, new Date(Date.now() - 86_400_000));
   */
  resendFailed(endpointId: string, since: Date | string, options?: RequestOptions): Promise<ResendFailedAnswer> {
    const at = typeof since === "string" ? since : since.toISOString();
    return this.call("POST", path`/webhook-endpoints/${endpointId}/resend-failed`, options, { since: at });
  }

  /** Keeps a temporary endpoint (`create({ temporary: true })`) from expiring: its `expires_at` moves on. */
  keepAlive(endpointId: string, options?: RequestOptions): Promise<WebhookEndpoint> {
    return this.call("POST", path`/webhook-endpoints/${endpointId}/keep-alive`, options);
  }

  /** An event as its deliveries carry it. */
  message(messageId: string, options?: RequestOptions): Promise<WebhookMessage> {
    return this.call("GET", path`/webhook-messages/${messageId}`, options);
  }

  /** Every event type with the JSON Schema of its body. */
  eventTypes(options?: RequestOptions): Promise<EventTypeCatalogue> {
    return this.ctx.http.request({ method: "GET", baseUrl: this.ctx.baseUrl, path: "/webhook-event-types" }, options);
  }
}
