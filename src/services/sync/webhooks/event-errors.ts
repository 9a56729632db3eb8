import { pgErrorFields } from "../../../shared/db/pg-error.js";
import { isStorageUnavailable } from "../../../shared/db/unavailable.js";
import { AppError, isAppError, validationError } from "../../../shared/errors.js";

/**
 * Which failures are about one event's content, and which may pass if tried again. Intake and the
 * worker both decide with these: content fails that event alone (a 422 at intake, `failed` at once
 * in the worker); anything else is retried (a 503 the upstream delivers again, or the queue's
 * backoff).
 */

/**
 * SQLSTATE classes that are about the values a statement carries, not about the database's state:
 * 22 data exception (a value too long for its type, a date out of range, bad text for a number)
 * and 54 program limit exceeded (54000: an index row too big, a value past what one row holds).
 * Retrying the same values fails the same way.
 */
const CONTENT_CLASSES = /^(22|54)[0-9A-Z]{3}$/;

/** Whether storage refused a statement for the values it carries (looks through Drizzle's and pg-boss's wrapping). */
export function isContentError(err: unknown, depth = 0): boolean {
  if (typeof err !== "object" || err === null || depth > 4) return false;
  const { code } = pgErrorFields(err);
  if (typeof code === "string") return CONTENT_CLASSES.test(code);
  return isContentError((err as { cause?: unknown }).cause, depth + 1);
}

/**
 * The 422 of an event storage refused for its content. The database's own words (index names,
 * sizes) stay in the log; the sender is told what to fix.
 */
export function unstorableEvent(err: unknown): AppError {
  const { code } = pgErrorFields(err);
  const tooLarge = typeof code === "string" && code.startsWith("54");
  return validationError([
    {
      loc: ["body"],
      msg: tooLarge ? "The event holds a value too large to store" : "The event holds a value storage cannot accept",
      type: "value_error",
    },
  ]);
}

/** A failed store that may succeed when delivered again. */
export const storeUnavailable = (cause?: unknown) =>
  new AppError("UNAVAILABLE", "The event could not be stored; deliver it again", { cause, headers: { "retry-after": "1" } });

/** What a network failure carries, beside or inside a TypeError (undici's `fetch failed`). */
const NETWORK_MESSAGE = /fetch failed|socket|network|ECONN|ETIMEDOUT|EPIPE/i;

/**
 * Whether an error in an event's work is one retrying cannot fix: a validation or type error on
 * the event's data (a TypeError from reading a field that is not there, a RangeError from a date
 * that is not one), or storage refusing a value of it. Storage or the upstream being unavailable,
 * timeouts, and anything unrecognised may pass, and are retried.
 */
export function isPermanentEventError(err: unknown): boolean {
  if (isStorageUnavailable(err)) return false;
  if (isAppError(err)) return err.code === "VALIDATION";
  if (isContentError(err)) return true;
  if (!(err instanceof TypeError || err instanceof RangeError)) return false;
  // A TypeError with a cause is a wrapped failure (undici's `fetch failed` over a refused socket), not the data's.
  return err.cause === undefined && !NETWORK_MESSAGE.test(err.message);
}
