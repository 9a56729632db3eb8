import { pgErrorFields } from "../../../shared/db/pg-error.js";
import { conflict } from "../../../shared/errors.js";

/** True when `err` is a unique violation (23505), of `constraint` when given. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const f = pgErrorFields(err);
  return f.code === "23505" && (constraint === undefined || f.constraint === constraint);
}

/**
 * Runs `work`; a unique violation of one of `conflicts`' constraints becomes a 409 with its message
 * (the database's own detail, which quotes the values, is never shown). Other errors pass through.
 */
export async function withConflicts<T>(conflicts: Record<string, string>, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    for (const [constraint, message] of Object.entries(conflicts)) {
      if (isUniqueViolation(err, constraint)) throw conflict(message);
    }
    throw err;
  }
}
