import type { Clock } from "./clock.js";
import { AbortedError, ApiError, ConnectionError, TimeoutError } from "./errors.js";
import { parseRetryAfter } from "../../contracts/retry-after.js";
import { backoffDelay, IDEMPOTENT_METHODS, isRetryableStatus, type RetryPolicy } from "./retry.js";
import { exchange, type FetchLike } from "./transport.js";
import { buildUrl, type Query } from "./url.js";

/** Options every SDK method accepts as its last argument. */
export type RequestOptions = {
  /** Cancels the call (and any retry wait). */
  signal?: AbortSignal | undefined;
  /** Per-attempt deadline in ms; overrides the client's `timeoutMs`. */
  timeoutMs?: number | undefined;
  /** Overrides the client's `maxRetries` for this call. */
  maxRetries?: number | undefined;
  /** Extra request headers (for example `X-Request-Id` to correlate with server logs). */
  headers?: Record<string, string> | undefined;
  /**
   * The `Idempotency-Key` of a create (positions, candidates): by default a new UUID per call,
   * reused by its retries. Pass your own to make retries across calls (or processes) safe.
   */
  idempotencyKey?: string | undefined;
};

/** Where bearer tokens come from; the TokenManager in practice. */
export interface TokenSource {
  getAccessToken(signal?: AbortSignal): Promise<string>;
  invalidate(token: string): void;
}

export type HttpClientOptions = {
  fetch: FetchLike;
  clock: Clock;
  timeoutMs: number;
  retry: RetryPolicy;
  tokens: TokenSource;
};

export type ApiCall = {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  baseUrl: string;
  path: string;
  query?: Query | undefined;
  body?: unknown;
  /** Safe to repeat after a 5xx or a lost connection. Default: by method (GET, PUT, DELETE), or when it has an idempotency key. */
  idempotent?: boolean | undefined;
  /**
   * Sent as `Idempotency-Key` with every attempt: the server answers a repeat with the first
   * answer, so the call is retried like an idempotent one, and a 409 "still being processed" (with
   * Retry-After) is waited out.
   */
  idempotencyKey?: string | undefined;
};

const UNAUTHORIZED = 401;
/** With an idempotency key and Retry-After: the key's first request is still running. */
const CONFLICT = 409;

/** A new `Idempotency-Key`: one per logical create, reused by its retries. */
export const newIdempotencyKey = (): string => globalThis.crypto.randomUUID();

/**
 * Sends one API call: bearer token from the token source, JSON in and out, a deadline per attempt,
 * the caller's AbortSignal, bounded retries (`Retry-After` honoured) and, after a 401, exactly one
 * new attempt with a renewed token. Errors leave as the typed classes of errors.ts.
 */
export class HttpClient {
  constructor(private readonly opts: HttpClientOptions) {}

  async request<T>(call: ApiCall, options: RequestOptions = {}): Promise<T> {
    return (await this.send<T>(call, options)).body;
  }

  /** Like `request`, with the response's status and headers (e.g. a 201's `Location`). */
  async send<T>(call: ApiCall, options: RequestOptions = {}): Promise<{ status: number; headers: Headers; body: T }> {
    const url = buildUrl(call.baseUrl, call.path, call.query);
    const idempotent = call.idempotent ?? (call.idempotencyKey !== undefined || IDEMPOTENT_METHODS.has(call.method));
    const maxRetries = options.maxRetries ?? this.opts.retry.maxRetries;
    const timeoutMs = options.timeoutMs ?? this.opts.timeoutMs;
    const headers: Record<string, string> = { accept: "application/json", ...options.headers };
    if (call.idempotencyKey !== undefined) headers["idempotency-key"] = call.idempotencyKey;
    let body: string | undefined;
    if (call.body !== undefined) {
      body = JSON.stringify(call.body);
      headers["content-type"] = "application/json";
    }
    let retries = 0;
    let renewedAfter401 = false;
    for (;;) {
      let token: string | undefined;
      try {
        token = await this.opts.tokens.getAccessToken(options.signal);
        const res = await exchange(
          this.opts.fetch,
          { method: call.method, url, headers: { ...headers, authorization: `Bearer ${token}` }, ...(body === undefined ? {} : { body }) },
          { timeoutMs, signal: options.signal },
        );
        if (res.status >= 200 && res.status < 300) return { status: res.status, headers: res.headers, body: res.body as T };
        if (res.status === UNAUTHORIZED && !renewedAfter401) {
          // The token may have been revoked or the clocks disagree: renew and send once more. A
          // second 401 with a brand-new token is final.
          renewedAfter401 = true;
          this.opts.tokens.invalidate(token);
          continue;
        }
        const error = ApiError.fromResponse(res.status, res.body, res.headers, { method: call.method, url });
        const inFlight = res.status === CONFLICT && call.idempotencyKey !== undefined && res.headers.has("retry-after");
        const wait = this.retryDelay(res.status, res.headers, idempotent || inFlight, retries, maxRetries, inFlight);
        if (wait === null) throw error;
        await this.sleep(wait, options.signal);
      } catch (err) {
        if (!(err instanceof ConnectionError || err instanceof TimeoutError) || retries >= maxRetries) throw err;
        // Before a token was obtained nothing reached the API, so any method may be repeated.
        if (!idempotent && token !== undefined) throw err;
        await this.sleep(backoffDelay(retries, this.opts.retry), options.signal);
      }
      retries++;
    }
  }

  /** Milliseconds to wait before retrying this status, or null when it must not be retried. */
  private retryDelay(status: number, headers: Headers, idempotent: boolean, retries: number, maxRetries: number, inFlight = false) {
    if (retries >= maxRetries || !(inFlight || isRetryableStatus(status, idempotent))) return null;
    const retryAfter = parseRetryAfter(headers.get("retry-after"), this.opts.clock.now());
    if (retryAfter === null) return backoffDelay(retries, this.opts.retry);
    // A server asking for a long pause gets it from the caller, who sees RateLimitError.retryAfter.
    return retryAfter <= this.opts.retry.maxRetryAfterMs ? retryAfter : null;
  }

  private async sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
    try {
      await this.opts.clock.sleep(ms, signal);
    } catch (err) {
      throw new AbortedError("The request was aborted", { cause: err });
    }
  }
}
