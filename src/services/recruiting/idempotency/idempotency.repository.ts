import { and, eq, sql } from "drizzle-orm";
import type { Db, Tx } from "../../../shared/db/database.js";
import { idempotencyKeys } from "./idempotency.tables.js";

/** How long a key's first answer is kept: at least this long, until the next purge after it. */
export const IDEMPOTENCY_RETENTION_HOURS = 24;

/** One key of one caller of one organisation. */
export type KeyScope = { orgId: string; caller: string; key: string };

/** A stored first answer. */
export type StoredAnswer = { fingerprint: string; status: number; response: string };

const where = (s: KeyScope) =>
  and(eq(idempotencyKeys.organizationId, s.orgId), eq(idempotencyKeys.caller, s.caller), eq(idempotencyKeys.key, s.key));

const expired = sql`${idempotencyKeys.createdAt} < now() - make_interval(hours => ${IDEMPOTENCY_RETENTION_HOURS})`;

/**
 * Takes the key for this transaction without waiting: false when another transaction (another
 * instance's request with the same key) holds it now. Released by commit or rollback.
 */
export async function lockKey(tx: Tx, s: KeyScope): Promise<boolean> {
  const result = (await tx.execute(
    sql`select pg_try_advisory_xact_lock(hashtextextended(${`${s.orgId}\n${s.caller}\n${s.key}`}, 205)) as locked`,
  )) as unknown as { rows: { locked: boolean }[] };
  return result.rows[0]?.locked === true;
}

/** The key's first answer, unless it is older than the retention (then it is deleted and forgotten). */
export async function storedAnswer(tx: Tx, s: KeyScope): Promise<StoredAnswer | undefined> {
  await tx.delete(idempotencyKeys).where(and(where(s), expired));
  const [row] = await tx
    .select({ fingerprint: idempotencyKeys.fingerprint, status: idempotencyKeys.status, response: idempotencyKeys.response })
    .from(idempotencyKeys)
    .where(where(s));
  return row;
}

export async function storeAnswer(tx: Tx, s: KeyScope, answer: StoredAnswer): Promise<void> {
  await tx.insert(idempotencyKeys).values({ organizationId: s.orgId, caller: s.caller, key: s.key, ...answer });
}

/** Deletes the keys past the retention, up to `limit` at a time; answers how many went. */
export async function purgeExpiredKeys(db: Db, limit = 10_000): Promise<number> {
  const result = (await db.execute(sql`
    with gone as (
      delete from idempotency_keys where ctid in (
        select ctid from idempotency_keys
         where created_at < now() - make_interval(hours => ${IDEMPOTENCY_RETENTION_HOURS})
         limit ${limit})
      returning 1)
    select count(*)::int as n from gone`)) as unknown as { rows: { n: number }[] };
  return result.rows[0]?.n ?? 0;
}
