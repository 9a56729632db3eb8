/**
 * Delivers signed webhook events to `<receiver base>/<event type>` in the background, retrying
 * failed deliveries with exponential backoff up to a bounded number of attempts. Sending never
 * blocks the API response that caused the event. Every event lands in a bounded delivery log
 * (`GET /sandbox/webhooks`), also when no receiver is configured, so demos and tests can see what
 * the sandbox would have sent.
 */
import { request } from "undici";
import type { TSchema } from "@sinclair/typebox";
import type { Logger } from "pino";
import {
  WEBHOOK_EVENT_SCHEMAS,
  type WebhookDataByType,
  type WebhookEvent,
  type WebhookEventType,
} from "../../../contracts/upstream/index.js";
import { serializerOf } from "../http/json-cache.js";
import { newId } from "../data/random.js";
import { signWebhookBody } from "./sign.js";

export type DeliveryState = "pending" | "retrying" | "delivered" | "failed" | "not_sent";

export type DeliveryRecord = {
  event_id: string;
  type: WebhookEventType;
  target: string | null;
  state: DeliveryState;
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
  next_attempt_at: string | null;
  event: WebhookEvent;
};

export type WebhookRetryPolicy = {
  /** Attempts in total, including the first. */
  maxAttempts: number;
  /** Delay before the second attempt; doubles for each further one. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Per attempt: a receiver slower than this counts as failed. */
  timeoutMs: number;
};

export const DEFAULT_RETRY_POLICY: WebhookRetryPolicy = { maxAttempts: 6, baseDelayMs: 1000, maxDelayMs: 30_000, timeoutMs: 10_000 };
const LOG_LIMIT = 1000;

export class WebhookSender {
  readonly #log: DeliveryRecord[] = [];
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #inFlight = new Set<Promise<void>>();
  #closed = false;

  constructor(
    private readonly opts: {
      secret: string;
      /** Receiver base URL, read at send time (it can be changed at run time); null disables delivery. */
      target: () => string | null;
      logger: Logger;
      retry: WebhookRetryPolicy;
    },
  ) {}

  /** Queues one event; returns its log record at once. */
  send<T extends WebhookEventType>(type: T, data: WebhookDataByType[T]): DeliveryRecord {
    const event = { id: newId(), type, data } as WebhookEvent;
    const base = this.opts.target();
    const record: DeliveryRecord = {
      event_id: event.id,
      type,
      target: base ? `${base.replace(/\/+$/, "")}/${type}` : null,
      state: base ? "pending" : "not_sent",
      attempts: 0,
      last_status: null,
      last_error: null,
      created_at: new Date().toISOString(),
      delivered_at: null,
      next_attempt_at: null,
      event,
    };
    this.#log.push(record);
    if (this.#log.length > LOG_LIMIT) this.#log.splice(0, this.#log.length - LOG_LIMIT);
    if (record.target && !this.#closed) this.#track(this.#attempt(record, serializerOf<TSchema>(WEBHOOK_EVENT_SCHEMAS[type])(event)));
    return record;
  }

  deliveries(): readonly DeliveryRecord[] {
    return this.#log;
  }

  /** Cancels scheduled retries and waits for attempts already on the wire. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
    await Promise.allSettled([...this.#inFlight]);
  }

  #track(p: Promise<void>): void {
    this.#inFlight.add(p);
    void p.finally(() => this.#inFlight.delete(p));
  }

  async #attempt(record: DeliveryRecord, body: string): Promise<void> {
    const { retry, secret, logger } = this.opts;
    record.attempts++;
    record.next_attempt_at = null;
    const signature = signWebhookBody(body, secret);
    try {
      const res = await request(record.target!, {
        method: "POST",
        body,
        headers: {
          "content-type": "application/json",
          "user-agent": "hirebridge-sandbox-webhooks/1",
          "x-kombo-signature": signature,
          "x-upstream-signature": signature,
        },
        headersTimeout: retry.timeoutMs,
        bodyTimeout: retry.timeoutMs,
      });
      record.last_status = res.statusCode;
      await res.body.dump();
      if (res.statusCode >= 200 && res.statusCode < 300) {
        record.state = "delivered";
        record.delivered_at = new Date().toISOString();
        record.last_error = null;
        return;
      }
      record.last_error = `receiver answered ${res.statusCode}`;
    } catch (err) {
      record.last_status = null;
      record.last_error = err instanceof Error ? err.message : String(err);
    }
    if (record.attempts >= retry.maxAttempts || this.#closed) {
      record.state = "failed";
      logger.warn(
        { event_id: record.event_id, type: record.type, attempts: record.attempts, error: record.last_error },
        "webhook delivery failed",
      );
      return;
    }
    record.state = "retrying";
    const delay = Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** (record.attempts - 1));
    record.next_attempt_at = new Date(Date.now() + delay).toISOString();
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      this.#track(this.#attempt(record, body));
    }, delay);
    this.#timers.add(timer);
  }
}
