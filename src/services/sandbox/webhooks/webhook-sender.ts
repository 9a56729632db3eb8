/**
 * Delivers signed webhook events to `<receiver base>/<event type>` in the background, retrying
 * failed deliveries with exponential backoff up to a bounded number of attempts. Sending never
 * blocks the API response that caused the event. Every event lands in a bounded delivery log
 * (`GET /sandbox/webhooks`), also when no receiver is configured, so demos and tests can see what
 * the sandbox would have sent. The order webhooks of the assessment channel are the exception to
 * fire-and-forget: the receiver's answer is the vendor's decision (accept, reject with 422, or an
 * inline assessment URL), so `deliver` reads it and hands it to the caller.
 */
import { request } from "undici";
import type { TSchema } from "@sinclair/typebox";
import type { Logger } from "pino";
import {
  ASSESSMENT_WEBHOOK_EVENT_SCHEMAS,
  ASSESSMENT_WEBHOOK_PATHS,
  type AssessmentOrderReceivedData,
  type AssessmentWebhookEvent,
  type AssessmentWebhookEventType,
  WEBHOOK_EVENT_SCHEMAS,
  type WebhookDataByType,
  type WebhookEvent,
  type WebhookEventType,
} from "../../../contracts/upstream/index.js";
import { serializerOf } from "../http/json-cache.js";
import { newId } from "../data/random.js";
import { signWebhookBody } from "../../../shared/upstream/webhook-signature.js";

/** `rejected`: the receiver refused the event on purpose (an order answered 422); not retried. */
export type DeliveryState = "pending" | "retrying" | "delivered" | "rejected" | "failed" | "not_sent";

export type AnyWebhookEventType = WebhookEventType | AssessmentWebhookEventType;
type DataOf<T extends AnyWebhookEventType> = T extends WebhookEventType ? WebhookDataByType[T] : AssessmentOrderReceivedData;

const EVENT_SCHEMAS: Record<AnyWebhookEventType, TSchema> = { ...WEBHOOK_EVENT_SCHEMAS, ...ASSESSMENT_WEBHOOK_EVENT_SCHEMAS };
/** The path segment under the receiver base: the type itself, or its colon-free form for the order kinds. */
const pathOf = (type: AnyWebhookEventType): string => (ASSESSMENT_WEBHOOK_PATHS as Record<string, string>)[type] ?? type;

/** One attempt's outcome as `deliver`'s caller sees it: the status and the (JSON) body, or the error. */
export type ReceiverAnswer = { status: number | null; body: unknown; error: string | null };
type AnswerHook = { answers: readonly number[]; onAnswer: (answer: ReceiverAnswer, record: DeliveryRecord) => void };
/** An answer body beyond this is not read (an inline answer is a URL). */
const ANSWER_LIMIT_BYTES = 64 * 1024;

export type DeliveryRecord = {
  event_id: string;
  type: AnyWebhookEventType;
  target: string | null;
  state: DeliveryState;
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
  next_attempt_at: string | null;
  event: WebhookEvent | AssessmentWebhookEvent;
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
  send<T extends AnyWebhookEventType>(type: T, data: DataOf<T>): DeliveryRecord {
    return this.#send(type, data, undefined).record;
  }

  /**
   * Sends one event whose answer matters and resolves after its first attempt. `onAnswer` hears
   * every attempt; a 2xx or one of `answers` (e.g. 422) ends the delivery, anything else is
   * retried in the background as `send` does.
   */
  async deliver<T extends AnyWebhookEventType>(type: T, data: DataOf<T>, hook: AnswerHook): Promise<DeliveryRecord> {
    const { record, first } = this.#send(type, data, hook);
    await first;
    return record;
  }

  #send(type: AnyWebhookEventType, data: unknown, hook: AnswerHook | undefined): { record: DeliveryRecord; first: Promise<void> } {
    const event = { id: newId(), type, data } as WebhookEvent | AssessmentWebhookEvent;
    const base = this.opts.target();
    const record: DeliveryRecord = {
      event_id: event.id,
      type,
      target: base ? `${base.replace(/\/+$/, "")}/${pathOf(type)}` : null,
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
    if (!record.target || this.#closed) return { record, first: Promise.resolve() };
    const first = this.#attempt(record, serializerOf<TSchema>(EVENT_SCHEMAS[type])(event), hook);
    this.#track(first);
    return { record, first };
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

  /** One POST: the status and, when someone listens, the answer's JSON body (bounded). */
  async #post(record: DeliveryRecord, body: string, readBody: boolean): Promise<ReceiverAnswer> {
    const { retry, secret } = this.opts;
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
      if (!readBody) {
        await res.body.dump();
        return { status: res.statusCode, body: null, error: null };
      }
      return { status: res.statusCode, body: await readJson(res.body), error: null };
    } catch (err) {
      return { status: null, body: null, error: err instanceof Error ? err.message : String(err) };
    }
  }

  async #attempt(record: DeliveryRecord, body: string, hook?: AnswerHook): Promise<void> {
    const { retry, logger } = this.opts;
    record.attempts++;
    record.next_attempt_at = null;
    const answer = await this.#post(record, body, hook !== undefined);
    record.last_status = answer.status;
    const ok = answer.status !== null && answer.status >= 200 && answer.status < 300;
    const refused = answer.status !== null && (hook?.answers ?? []).includes(answer.status);
    record.last_error = ok ? null : (answer.error ?? `receiver answered ${answer.status}`);
    if (ok || refused) {
      record.state = ok ? "delivered" : "rejected";
      record.delivered_at = new Date().toISOString();
    } else if (record.attempts >= retry.maxAttempts || this.#closed) {
      record.state = "failed";
      logger.warn(
        { event_id: record.event_id, type: record.type, attempts: record.attempts, error: record.last_error },
        "webhook delivery failed",
      );
    } else {
      record.state = "retrying";
      const delay = Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** (record.attempts - 1));
      record.next_attempt_at = new Date(Date.now() + delay).toISOString();
      const timer = setTimeout(() => {
        this.#timers.delete(timer);
        this.#track(this.#attempt(record, body, hook));
      }, delay);
      this.#timers.add(timer);
    }
    hook?.onAnswer(answer, record);
  }
}

/** The answer's JSON, or null when it is not JSON or larger than ANSWER_LIMIT_BYTES. */
async function readJson(body: AsyncIterable<Buffer> & { destroy(): unknown }): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > ANSWER_LIMIT_BYTES) {
      body.destroy();
      return null;
    }
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown;
  } catch {
    return null;
  }
}
