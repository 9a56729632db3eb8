import { and, asc, desc, eq, gt, gte, lt, lte, or, sql, type SQL } from "drizzle-orm";
import type { Queryable } from "../../shared/db/database.js";
import { auditLog as t, auditLogHeads as heads, type AuditHeadRow, type AuditRow } from "./audit.tables.js";

/**
 * Locks the organisation's chain head until the caller's transaction ends (created at seq 0 on
 * its first entry) and answers it as last committed: concurrent appends of one organisation wait
 * here, one after the other, so each sees the entry before it. (An upsert's conflict path locks
 * and reads the row's latest version even in a snapshot taken before the wait.)
 */
export async function lockHead(tx: Queryable, orgId: string): Promise<AuditHeadRow> {
  const [row] = await tx
    .insert(heads)
    .values({ organizationId: orgId })
    .onConflictDoUpdate({ target: heads.organizationId, set: { seq: sql.raw("audit_log_heads.seq") } })
    .returning();
  return row!;
}

/** Appends `rows` (already chained onto the head) and moves the head to the last of them. */
export async function appendEntries(tx: Queryable, orgId: string, rows: AuditRow[]): Promise<void> {
  const last = rows.at(-1);
  if (!last) return;
  await tx.insert(t).values(rows);
  await tx.update(heads).set({ seq: last.seq, hash: last.hash }).where(eq(heads.organizationId, orgId));
}

/** The head of the organisation's chain, or null before its first entry. */
export async function findHead(q: Queryable, orgId: string): Promise<AuditHeadRow | null> {
  const [row] = await q.select().from(heads).where(eq(heads.organizationId, orgId));
  return row ?? null;
}

export type AuditFilter = {
  /** A token `sub` or a client id. */
  actor?: string | undefined;
  action?: string | undefined;
  resourceType?: string | undefined;
  resourceId?: string | undefined;
  since?: Date | undefined;
  until?: Date | undefined;
};

/** One page of the organisation's entries, newest first, after the cursor's seq (exclusive). */
export async function listEntries(q: Queryable, orgId: string, f: AuditFilter, limit: number, beforeSeq?: number): Promise<AuditRow[]> {
  const where: (SQL | undefined)[] = [
    eq(t.organizationId, orgId),
    beforeSeq === undefined ? undefined : lt(t.seq, beforeSeq),
    f.actor === undefined ? undefined : or(eq(t.actorSub, f.actor), eq(t.actorClient, f.actor)),
    f.action === undefined ? undefined : eq(t.action, f.action),
    f.resourceType === undefined ? undefined : eq(t.resourceType, f.resourceType),
    f.resourceId === undefined ? undefined : sql`${f.resourceId.toLowerCase()} = any(${t.resourceIds})`,
    f.since === undefined ? undefined : gte(t.occurredAt, f.since),
    f.until === undefined ? undefined : lte(t.occurredAt, f.until),
  ];
  return q
    .select()
    .from(t)
    .where(and(...where))
    .orderBy(desc(t.seq))
    .limit(limit);
}

/** The chain in order, `limit` rows after `afterSeq` (what the verification walks). */
export async function chainPage(q: Queryable, orgId: string, afterSeq: number, limit: number): Promise<AuditRow[]> {
  return q
    .select()
    .from(t)
    .where(and(eq(t.organizationId, orgId), gt(t.seq, afterSeq)))
    .orderBy(asc(t.seq))
    .limit(limit);
}

/**
 * Deletes, per organisation, the oldest entries up to the newest one recorded before `cutoff` (a
 * prefix of the chain, so what stays still verifies), at most `orgLimit` organisations per call;
 * the heads remember the last seq removed. Answers how many entries went.
 */
export async function purgeBefore(q: Queryable, cutoff: Date, orgLimit: number): Promise<number> {
  const result = (await q.execute(sql`
    with due as (
      select organization_id, max(seq) as through from audit_log
       where occurred_at < ${cutoff.toISOString()}::timestamptz
       group by organization_id
       limit ${orgLimit}),
    gone as (
      delete from audit_log a using due
       where a.organization_id = due.organization_id and a.seq <= due.through
      returning 1),
    moved as (
      update audit_log_heads h set purged_through = greatest(h.purged_through, due.through)
        from due where h.organization_id = due.organization_id
      returning 1)
    select (select count(*) from gone)::int as n, (select count(*) from moved)::int as heads`)) as unknown as {
    rows: { n: number }[];
  };
  return result.rows[0]?.n ?? 0;
}
