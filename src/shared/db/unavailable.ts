/**
 * Whether an error means a backing store (Postgres, PGlite, Redis) cannot be reached right now, as
 * opposed to a bug or bad input: the request may succeed if retried later, so it is answered 503
 * with Retry-After instead of 500. Recognises the errors of pg (socket errors, connect timeouts, a
 * connection the server ended, statement and connect timeouts, SQLSTATE classes 08 and 57P,
 * too_many_connections and query_canceled), PGlite (closed)
 * and ioredis (closed connection, no offline queue, retries used up), through Drizzle's and
 * pg-boss's wrapping (`cause`, AggregateError's `errors`).
 */
const SOCKET_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ECONNABORTED",
]);
const MESSAGES = [
  /^Connection terminated/, // pg: the server closed the connection (shutdown, restart)
  /timeout exceeded when trying to connect/, // pg pool, or our pool's sweep: no free connection in time (DATABASE_CONNECT_TIMEOUT_MS)
  /^Query read timeout$/, // pg: no answer within a query_timeout (none of ours sets one; a DATABASE_URL parameter can)
  /^Connection terminated due to connection timeout$/, // pg pool: a new connection did not finish in time
  /^timeout expired$/, // pg client: a new connection did not finish in time (DATABASE_CONNECT_TIMEOUT_MS)
  /Client has encountered a connection error and is not queryable/, // pg
  /^PGlite is closed/,
  /^Connection is closed\.?$/, // ioredis
  /enableOfflineQueue options is false/, // ioredis without a connection
  /^Reached the max retries per request limit/, // ioredis
];

function unavailableHere(e: { code?: unknown; message?: unknown; name?: unknown }): boolean {
  const code = typeof e.code === "string" ? e.code : "";
  if (SOCKET_CODES.has(code)) return true;
  // Postgres SQLSTATE: 08xxx connection exception; 57P01–57P03 shutdown / cannot connect now; 53300 too many
  // connections; 57014 a statement cancelled by statement_timeout (DATABASE_STATEMENT_TIMEOUT_MS).
  if (/^08[0-9A-Z]{3}$/.test(code) || /^57P0[1-3]$/.test(code) || code === "53300" || code === "57014") return true;
  if (e.name === "MaxRetriesPerRequestError") return true;
  const message = typeof e.message === "string" ? e.message : "";
  return MESSAGES.some((m) => m.test(message));
}

export function isStorageUnavailable(err: unknown, depth = 0): boolean {
  if (typeof err !== "object" || err === null || depth > 6) return false;
  if (unavailableHere(err as Record<string, unknown>)) return true;
  const { cause, errors } = err as { cause?: unknown; errors?: unknown };
  if (Array.isArray(errors) && errors.some((e) => isStorageUnavailable(e, depth + 1))) return true;
  return isStorageUnavailable(cause, depth + 1);
}

/** Seconds a client is asked to wait before retrying while storage is unreachable. */
export const STORAGE_RETRY_AFTER_SECONDS = 5;
