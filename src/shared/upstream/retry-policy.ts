/**
 * When to try an upstream call again, and how long to wait. Reads are retried on 429, 5xx and
 * connection failures; writes only when the request provably never reached the upstream (the
 * connection could not be opened), since a write that reached it may have taken effect.
 * Waits grow exponentially with equal jitter (so proxies retrying together spread out) and are
 * never shorter than the upstream's `Retry-After`; the whole sequence is bounded in time.
 */
export type RetryPolicy = {
  /** Retries after the first attempt. */
  retries: number;
  /** First backoff step; each retry doubles it. */
  baseDelayMs: number;
  /** Upper bound of the time spent waiting between attempts, summed over the whole call. */
  maxTotalWaitMs: number;
};

export const RETRYABLE_STATUSES = new Set([429, 500, 502, 503, 504]);

export function isRetryableStatus(status: number): boolean {
  return RETRYABLE_STATUSES.has(status) || (status >= 500 && status <= 599);
}

/** Failures raised before a single byte of the request left: safe to retry even for writes. */
const NEVER_SENT = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "UND_ERR_CONNECT_TIMEOUT"]);
/** Connection failures after the request may have been sent: retried for reads only. */
const CONNECTION_LOST = new Set(["ECONNRESET", "EPIPE", "UND_ERR_SOCKET", "UND_ERR_CLOSED"]);

export function errorCode(err: unknown): string | undefined {
  if (!(err instanceof Error)) return undefined;
  const own = (err as { code?: unknown }).code;
  if (typeof own === "string" && own !== "UND_ERR_SOCKET") return own;
  // undici wraps socket errors; the cause carries the system code.
  const cause = (err as { cause?: { code?: unknown } }).cause?.code;
  return typeof cause === "string" ? cause : typeof own === "string" ? own : undefined;
}

export function neverReachedUpstream(err: unknown): boolean {
  const code = errorCode(err);
  return code !== undefined && NEVER_SENT.has(code);
}

export function isConnectionError(err: unknown): boolean {
  const code = errorCode(err);
  return code !== undefined && (NEVER_SENT.has(code) || CONNECTION_LOST.has(code));
}

/** Wait before retry number `retry` (1-based): equal jitter over an exponential step, at least `retryAfterMs`. */
export function retryDelay(policy: RetryPolicy, retry: number, retryAfterMs?: number, random = Math.random): number {
  const step = policy.baseDelayMs * 2 ** (retry - 1);
  const jittered = step / 2 + random() * (step / 2);
  return Math.ceil(Math.max(jittered, retryAfterMs ?? 0));
}
