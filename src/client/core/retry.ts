/**
 * Retry policy of the HTTP core: which failures are worth another attempt, and how long to wait.
 * Waits honour the server's `Retry-After` (delta-seconds or an HTTP date, RFC 9110 §10.2.3) and fall
 * back to capped exponential back-off with full jitter so a crowd of clients does not retry in step.
 */
export type RetryPolicy = {
  /** Attempts after the first one. */
  maxRetries: number;
  /** First back-off step; doubles per attempt. */
  baseDelayMs: number;
  /** Upper bound of one computed back-off step. */
  maxDelayMs: number;
  /** A `Retry-After` longer than this is not waited for: the error goes to the caller instead. */
  maxRetryAfterMs: number;
};

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 2,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
};

const HTTP_STATUS = { REQUEST_TIMEOUT: 408, TOO_MANY_REQUESTS: 429 } as const;

/** Methods whose repetition has the same effect as one call (RFC 9110 §9.2.2). */
export const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "OPTIONS", "PUT", "DELETE"]);

/**
 * Whether a response status may be retried. A 429 was rejected before any work was done, so it is
 * safe for every method; 408 and 5xx may have had effects, so only idempotent calls repeat them.
 * 501 (not implemented) never gets better by asking again.
 */
export function isRetryableStatus(status: number, idempotent: boolean): boolean {
  if (status === HTTP_STATUS.TOO_MANY_REQUESTS) return true;
  if (!idempotent) return false;
  return status === HTTP_STATUS.REQUEST_TIMEOUT || (status >= 500 && status !== 501);
}

/** Full-jitter exponential back-off for retry number `attempt` (0-based). */
export function backoffDelay(attempt: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  // Never zero: keep at least a quarter of the step so a retry storm still spreads out.
  return Math.round(ceiling * (0.25 + 0.75 * random()));
}
