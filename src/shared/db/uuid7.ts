import { randomBytes } from "node:crypto";

/**
 * UUIDs of version 7 (RFC 9562): 48 bits of Unix milliseconds, then 74 random bits. Rows inserted
 * in bulk with these ids land at the right-hand end of their primary-key index instead of at
 * random pages (gen_random_uuid()), which cost the sync's page writes ~25% more Postgres time
 * (EXPLAIN ANALYZE, 220 candidates and interviews per statement). They reveal their creation
 * time, as the rows' created_at does.
 */
export function uuidv7s(count: number, now = Date.now()): string[] {
  const bytes = randomBytes(16 * count);
  const ids: string[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const b = bytes.subarray(16 * i, 16 * (i + 1));
    b.writeUIntBE(now, 0, 6);
    b[6] = (b[6]! & 0x0f) | 0x70;
    b[8] = (b[8]! & 0x3f) | 0x80;
    const h = b.toString("hex");
    ids[i] = `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }
  return ids;
}
