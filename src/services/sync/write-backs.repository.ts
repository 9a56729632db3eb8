import { and, desc, eq, inArray, sql } from "drizzle-orm";
import type { Queryable } from "../../shared/db/database.js";
import { writeBacks, type WriteBackRow } from "./sync.tables.js";
import { OPEN_WRITE_BACK_STATES } from "./write-back.states.js";

export type NewWriteBack = typeof writeBacks.$inferInsert;
export type WriteBackPatch = Partial<Omit<WriteBackRow, "id" | "eventKey" | "createdAt" | "updatedAt">>;

/**
 * Whether the integration has a write-back under way, or one that changed in the last `seconds`:
 * the upstream's data-changed is then (likely) the echo of Hirebridge's own writes.
 */
export async function writeBackActiveSince(q: Queryable, integrationId: string, seconds: number): Promise<boolean> {
  const [row] = await q
    .select({ id: writeBacks.id })
    .from(writeBacks)
    .where(
      and(
        eq(writeBacks.integrationId, integrationId),
        sql`(${inArray(writeBacks.state, [...OPEN_WRITE_BACK_STATES])} or ${writeBacks.updatedAt} > now() - make_interval(secs => ${seconds}))`,
      ),
    )
    .limit(1);
  return row !== undefined;
}

/** Records a write-back once per event key; null when the event was recorded before. */
export async function insertWriteBack(q: Queryable, values: NewWriteBack): Promise<string | null> {
  const [row] = await q.insert(writeBacks).values(values).onConflictDoNothing().returning({ id: writeBacks.id });
  return row?.id ?? null;
}

export async function findWriteBack(q: Queryable, id: string): Promise<WriteBackRow | null> {
  const [row] = await q.select().from(writeBacks).where(eq(writeBacks.id, id));
  return row ?? null;
}

/** Sets the patch; answers the write-back as it is now (null when there is none). */
export async function updateWriteBack(q: Queryable, id: string, patch: WriteBackPatch, at: Date): Promise<WriteBackRow | null> {
  const [row] = await q
    .update(writeBacks)
    .set({ ...patch, updatedAt: at })
    .where(eq(writeBacks.id, id))
    .returning();
  return row ?? null;
}

/** Counts an attempt at the upstream calls (the job's, whatever the queue's own count says). */
export async function countWriteBackAttempt(q: Queryable, id: string): Promise<void> {
  await q
    .update(writeBacks)
    .set({ attempts: sql`${writeBacks.attempts} + 1` })
    .where(eq(writeBacks.id, id));
}

/** The integration's paused write-backs, pending again; their ids (each needs its job again). */
export async function resumePausedWriteBacks(q: Queryable, integrationId: string, at: Date): Promise<string[]> {
  const rows = await q
    .update(writeBacks)
    .set({ state: "pending", updatedAt: at })
    .where(and(eq(writeBacks.integrationId, integrationId), eq(writeBacks.state, "paused")))
    .returning({ id: writeBacks.id });
  return rows.map((r) => r.id);
}

/** Every write-back of the integration that is not final yet fails with `reason`; answers them. */
export async function failOpenWriteBacks(q: Queryable, integrationId: string, reason: string, at: Date): Promise<WriteBackRow[]> {
  return q
    .update(writeBacks)
    .set({ state: "failed", lastError: reason, updatedAt: at })
    .where(and(eq(writeBacks.integrationId, integrationId), inArray(writeBacks.state, [...OPEN_WRITE_BACK_STATES])))
    .returning();
}

/**
 * The newest write-backs of the organisation into the integration: only its own, so a write-back
 * another organisation recorded against it (a link refused when it was sent) never shows here.
 */
export async function listWriteBacks(q: Queryable, orgId: string, integrationId: string, limit = 20): Promise<WriteBackRow[]> {
  return q
    .select()
    .from(writeBacks)
    .where(and(eq(writeBacks.orgId, orgId), eq(writeBacks.integrationId, integrationId)))
    .orderBy(desc(writeBacks.createdAt))
    .limit(limit);
}

/** How many of the organisation's write-backs into each of these integrations are still to go out (not final). */
export async function countOpenWriteBacks(q: Queryable, orgId: string, integrationIds: string[]): Promise<Map<string, number>> {
  if (integrationIds.length === 0) return new Map();
  const rows = await q
    .select({ integrationId: writeBacks.integrationId, count: sql<number>`count(*)::int` })
    .from(writeBacks)
    .where(
      and(
        eq(writeBacks.orgId, orgId),
        inArray(writeBacks.integrationId, integrationIds),
        inArray(writeBacks.state, [...OPEN_WRITE_BACK_STATES]),
      ),
    )
    .groupBy(writeBacks.integrationId);
  return new Map(rows.map((r) => [r.integrationId, r.count]));
}
