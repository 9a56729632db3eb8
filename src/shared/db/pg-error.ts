/**
 * Postgres error inspection that works on both drivers: Drizzle wraps driver errors in a
 * DrizzleQueryError whose `cause` carries the SQLSTATE `code` and the `constraint` name.
 */
export type PgErrorFields = { code?: unknown; constraint?: unknown };

export function pgErrorFields(err: unknown): PgErrorFields {
  if (typeof err !== "object" || err === null) return {};
  const own = err as PgErrorFields & { cause?: unknown };
  if (typeof own.code === "string") return own;
  return typeof own.cause === "object" && own.cause !== null ? (own.cause as PgErrorFields) : {};
}

/**
 * True when the server answered the statement with an error (it carries a SQLSTATE): a statement
 * outside an explicit transaction is then rolled back whole, so nothing of it was written and it
 * may be replayed. A lost connection carries no SQLSTATE: its statement may or may not have
 * committed.
 */
export function refusedByServer(err: unknown): boolean {
  const { code } = pgErrorFields(err);
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code);
}
