import { parseRetryAfter } from "../../contracts/retry-after.js";
/**
 * The retry schedule (WEBHOOK_RETRY_SCHEDULE): the delay before each attempt of a delivery, the
 * first counted from the event and each next one from the failure before it. The default is
 * Svix's: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h (about 17.5 hours, seven attempts).
 */
export const DEFAULT_RETRY_SCHEDULE = "0s,5s,5m,30m,2h,5h,10h";
export const RETRY_SCHEDULE_PATTERN = "^\\d+(ms|s|m|h)(,\\d+(ms|s|m|h))*$";

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

/** "0s,5s,5m" → [0, 5000, 300000] (the pattern above was checked by the config). */
export function parseSchedule(text: string): number[] {
  return text.split(",").map((part) => {
    const [, amount, unit] = /^(\d+)(ms|s|m|h)$/.exec(part.trim()) ?? [];
    if (!amount || !unit) throw new Error(`not a delay: ${part}`);
    return Number(amount) * UNIT_MS[unit as keyof typeof UNIT_MS];
  });
}

/** Up to a tenth of the delay, at random: retries of many messages that failed together spread out. */
const jitter = (delayMs: number) => Math.floor(Math.random() * delayMs * 0.1);

/**
 * When the next attempt of a delivery is due, after `made` attempts of its chain all failed; null
 * when the schedule is used up. A receiver's Retry-After (429, 503) pushes it later, never sooner.
 */
export function nextAttemptAt(schedule: readonly number[], made: number, now: number, retryAfterMs: number | null): Date | null {
  const delay = schedule[made];
  if (delay === undefined) return null;
  return new Date(now + Math.max(delay + jitter(delay), retryAfterMs ?? 0));
}

/** A receiver's `Retry-After` as milliseconds, capped at a day; null when absent, unreadable or zero. */
export function retryAfterMs(header: string | string[] | undefined, now: number): number | null {
  const ms = parseRetryAfter(header, now);
  return ms ? Math.min(ms, 86_400_000) : null;
}
