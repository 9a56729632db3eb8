import { conflict } from "../../../shared/errors.js";

/**
 * Postgres error inspection that works on both drivers: Drizzle wraps driver errors in a
 * DrizzleQueryError whose `cause` carries the SQLSTATE `code` and the `constraint` name.
 */
type PgErrorFields = { code?: unknown; constraint?: unknown };

function pgFields(err: unknown): PgErrorFields {
  if (typeof err !== "object" || err === null) return {};
  const own = err as PgErrorFields & { cause?: unknown };
  if (typeof own.code === "string") return own;
  return typeof own.cause === "object" && own.cause !== null ? (own.cause as PgErrorFields) : {};
}

/** True when `err` is a unique violation (23505), of `constraint` when given. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const f = pgFields(err);
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

/**
 * True when Postgres refused the statement for its data (SQLSTATE class 22, a data exception, or
 * 23, an integrity constraint violation): nothing was written, and the same values sent again fail
 * again, unlike a lost connection, whose statement may or may not have committed.
 */
export function isDataError(err: unknown): boolean {
  const { code } = pgFields(err);
  return typeof code === "string" && (code.startsWith("22") || code.startsWith("23"));
}
