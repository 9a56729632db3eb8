import { decodeKeysetCursor, encodeKeysetCursor } from "../../../shared/db/keyset-cursor.js";
import type { PositionCursor } from "./positions.repository.js";

/** The positions list cursor: a keyset cursor over (created_at, id), the id a UUID. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const encodeCursor = (cursor: PositionCursor): string => encodeKeysetCursor(cursor);

/** The cursor, or null when `text` is not one this server issued. */
export const decodeCursor = (text: string): PositionCursor | null => decodeKeysetCursor(text, (id) => UUID.test(id));
