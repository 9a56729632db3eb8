/**
 * The `Retry-After` header (RFC 9110 §10.2.3), read the one way every side of Hirebridge reads it:
 * the SDK, the upstream client and the outbound webhook sender. Browser-safe (the SDK uses it).
 * Each caller applies its own ceiling to the answer: the SDK gives up past `maxRetryAfterMs`, the
 * upstream client's retries are bounded in time, webhooks-out caps a receiver's wish at a day.
 */

/** `Retry-After` as milliseconds from `now`: delta-seconds or an HTTP date; null when absent or unreadable; never negative. */
export function parseRetryAfter(value: string | readonly string[] | null | undefined, now: number): number | null {
  const text = (typeof value === "string" ? value : value?.[0])?.trim();
  if (!text) return null;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
