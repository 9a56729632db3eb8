/**
 * Keyset cursors of the lists ordered by (created_at, id): opaque to clients, base64url of
 * `[created_at, id]` of the last row of a page. created_at keeps microseconds (a JS Date would
 * round them and repeat or skip rows), so it travels as Postgres printed it (`keysetTimestamp`).
 */
import { sql, type AnyColumn, type SQL } from "drizzle-orm";

export type KeysetCursor = { createdAt: string; id: string };

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

export function encodeKeysetCursor(cursor: KeysetCursor): string {
  return Buffer.from(JSON.stringify([cursor.createdAt, cursor.id])).toString("base64url");
}

/** The cursor, or null when `text` is not one this server issued (`validId` checks the id's form). */
export function decodeKeysetCursor(text: string, validId: (id: string) => boolean): KeysetCursor | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
    if (!Array.isArray(value) || value.length !== 2) return null;
    const [createdAt, id] = value as unknown[];
    if (typeof createdAt !== "string" || !TIMESTAMP.test(createdAt)) return null;
    if (typeof id !== "string" || !validId(id)) return null;
    return { createdAt, id };
  } catch {
    return null;
  }
}

/** created_at as the cursor carries it: UTC, to the microsecond. */
export const keysetTimestamp = (createdAt: AnyColumn): SQL<string> =>
  sql<string>`to_char(${createdAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/**
 * One page out of the rows a keyset query returned when asked for `limit + 1` (the extra row says
 * whether another page exists, without a count query); `last` is the cursor of the page's end.
 */
export function keysetPage<R extends { row: { id: string }; cursorAt: string }>(
  found: R[],
  limit: number | undefined,
): { page: R[]; more: boolean; last: KeysetCursor | null } {
  const more = limit !== undefined && found.length > limit;
  const page = more ? found.slice(0, limit) : found;
  const tail = page.at(-1);
  return { page, more, last: tail ? { createdAt: tail.cursorAt, id: tail.row.id } : null };
}
