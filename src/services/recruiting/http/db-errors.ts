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
