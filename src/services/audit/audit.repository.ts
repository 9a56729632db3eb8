import { and, asc, desc, eq, gt, gte, lt, lte, or, sql, type SQL } from "drizzle-orm";
import type { Db, Queryable } from "../../shared/db/database.js";
import { namedStatement } from "../../shared/db/named-statement.js";
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

/** The head as the optimistic append reads it (seq as text: int8 reads the same on both drivers). */
type HeadText = { seq: string; hash: string };

const headStatement = namedStatement<HeadText>(
  "audit_head_read",
  `with created as (
     insert into audit_log_heads (organization_id) values ($1::uuid) on conflict do nothing
     returning seq::text, hash)
   select seq, hash from created
   union all
   select seq::text, hash from audit_log_heads where organization_id = $1::uuid`,
);

/**
 * The organisation's chain head as last committed, created at seq 0 on its first entry; null when
 * a concurrent first entry's row is not visible yet (read again).
 */
export async function readHead(db: Db, orgId: string): Promise<{ seq: number; hash: string } | null> {
  const [row] = await headStatement(db, [orgId]);
  return row ? { seq: Number(row.seq), hash: row.hash } : null;
}

const appendStatement = namedStatement<{ n: number }>(
  "audit_append_if_head",
  `with moved as (
     update audit_log_heads set seq = $3::bigint, hash = $4
      where organization_id = $1::uuid and seq = $2::bigint and hash = $6
     returning organization_id)
   insert into audit_log (organization_id, seq, id, occurred_at, actor_sub, actor_client, action, resource_type,
                          resource_ids, request_id, source_address, score_before, score_after, details, prev_hash, hash)
   select m.organization_id, r.seq, r.id, r.occurred_at, r.actor_sub, r.actor_client, r.action, r.resource_type,
          r.resource_ids, r.request_id, r.source_address, r.score_before, r.score_after, r.details, r.prev_hash, r.hash
     from moved m cross join jsonb_to_recordset($5::jsonb) as r(
          seq bigint, id uuid, occurred_at timestamptz, actor_sub text, actor_client text, action text,
          resource_type text, resource_ids text[], request_id text, source_address text, score_before float8,
          score_after float8, details jsonb, prev_hash text, hash text)
   returning 1 as n`,
);

/**
 * Appends `rows` (chained onto the head `expected`) and moves the head to the last of them in one
 * statement, outside any transaction, if the head is still `expected`, seq and hash (a concurrent
 * append makes the update match nothing, after waiting for its row lock). Answers whether the rows
 * went in.
 */
export async function appendIfHead(db: Db, orgId: string, expected: { seq: number; hash: string }, rows: AuditRow[]): Promise<boolean> {
  const last = rows.at(-1);
  if (!last) return true;
  const json = JSON.stringify(
    rows.map((r) => ({
      seq: r.seq,
      id: r.id,
      occurred_at: r.occurredAt.toISOString(),
      actor_sub: r.actorSub,
      actor_client: r.actorClient,
      action: r.action,
      resource_type: r.resourceType,
      resource_ids: r.resourceIds,
      request_id: r.requestId,
      source_address: r.sourceAddress,
      score_before: r.scoreBefore,
      score_after: r.scoreAfter,
      details: r.details,
      prev_hash: r.prevHash,
      hash: r.hash,
    })),
  );
  const inserted = await appendStatement(db, [orgId, String(expected.seq), String(last.seq), last.hash, json, expected.hash]);
  return inserted.length > 0;
}
