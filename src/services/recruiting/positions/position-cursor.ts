import type { PositionCursor } from "./positions.repository.js";

/**
 * The positions list cursor is opaque to clients: base64url of `[created_at, id]` of the last row
 * of a page. created_at keeps microseconds (a JS Date would round them and repeat or skip rows).
 */
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function encodeCursor(cursor: PositionCursor): string {
  return Buffer.from(JSON.stringify([cursor.createdAt, cursor.id])).toString("base64url");
}

/** The cursor, or null when `text` is not one this server issued. */
export function decodeCursor(text: string): PositionCursor | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
    if (!Array.isArray(value) || value.length !== 2) return null;
    const [createdAt, id] = value as unknown[];
    if (typeof createdAt !== "string" || !TIMESTAMP.test(createdAt)) return null;
    if (typeof id !== "string" || !UUID.test(id)) return null;
    return { createdAt, id };
  } catch {
    return null;
  }
}
