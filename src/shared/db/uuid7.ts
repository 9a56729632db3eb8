import { randomBytes } from "node:crypto";

/**
 * UUIDs of version 7 (RFC 9562): 48 bits of Unix milliseconds, a 12-bit counter, then 62 random
 * bits. Rows inserted in bulk with these ids land at the right-hand end of their primary-key index
 * instead of at random pages (gen_random_uuid()), which cost the sync's page writes ~25% more
 * Postgres time (EXPLAIN ANALYZE, 220 candidates and interviews per statement). They reveal their
 * creation time, as the rows' created_at does.
 *
 * The ids of one process never go back (RFC 9562 section 6.2, method 1): within a millisecond the
 * counter, started at a random value below 2048, counts up; past 4095 it borrows the next
 * millisecond; a clock (or `now`) behind the last id's millisecond takes that millisecond. Lists
 * ordered by (created_at, id) then keep the order of creation for rows created in one millisecond:
 * with random bits there, two candidates posted one after the other could list the wrong way round.
 */
let lastMs = -1;
let counter = 0;

export function uuidv7s(count: number, now = Date.now()): string[] {
  const bytes = randomBytes(16 * count);
  const ids: string[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const b = bytes.subarray(16 * i, 16 * (i + 1));
    if (now > lastMs) {
      lastMs = now;
      counter = ((b[6]! & 0x07) << 8) | b[7]!;
    } else if (++counter > 0xfff) {
      lastMs++;
      counter = 0;
    }
    b.writeUIntBE(lastMs, 0, 6);
    b[6] = 0x70 | (counter >> 8);
    b[7] = counter & 0xff;
    b[8] = (b[8]! & 0x3f) | 0x80;
    const h = b.toString("hex");
    ids[i] = `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }
  return ids;
}
