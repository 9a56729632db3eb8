import { and, desc, eq, inArray, sql } from "drizzle-orm";
import type { Queryable } from "../../shared/db/database.js";
import { writeBacks, type WriteBackRow } from "./sync.tables.js";
import { OPEN_WRITE_BACK_STATES } from "./write-back.states.js";

export type NewWriteBack = typeof writeBacks.$inferInsert;
export type WriteBackPatch = Partial<Omit<WriteBackRow, "id" | "eventKey" | "createdAt" | "updatedAt">>;

/** Records a write-back once per event key; null when the event was recorded before. */
export async function insertWriteBack(q: Queryable, values: NewWriteBack): Promise<string | null> {
  const [row] = await q.insert(writeBacks).values(values).onConflictDoNothing().returning({ id: writeBacks.id });
  return row?.id ?? null;
}

export async function findWriteBack(q: Queryable, id: string): Promise<WriteBackRow | null> {
  const [row] = await q.select().from(writeBacks).where(eq(writeBacks.id, id));
  return row ?? null;
}

export async function updateWriteBack(q: Queryable, id: string, patch: WriteBackPatch, at: Date): Promise<void> {
  await q
    .update(writeBacks)
    .set({ ...patch, updatedAt: at })
    .where(eq(writeBacks.id, id));
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

/** Every write-back of the integration that is not final yet fails with `reason`. */
export async function failOpenWriteBacks(q: Queryable, integrationId: string, reason: string, at: Date): Promise<void> {
  await q
    .update(writeBacks)
    .set({ state: "failed", lastError: reason, updatedAt: at })
    .where(and(eq(writeBacks.integrationId, integrationId), inArray(writeBacks.state, [...OPEN_WRITE_BACK_STATES])));
}

export async function listWriteBacks(q: Queryable, integrationId: string, limit = 20): Promise<WriteBackRow[]> {
  return q.select().from(writeBacks).where(eq(writeBacks.integrationId, integrationId)).orderBy(desc(writeBacks.createdAt)).limit(limit);
}

/** How many write-backs of each of these integrations are still to go out (not final). */
export async function countOpenWriteBacks(q: Queryable, integrationIds: string[]): Promise<Map<string, number>> {
  if (integrationIds.length === 0) return new Map();
  const rows = await q
    .select({ integrationId: writeBacks.integrationId, count: sql<number>`count(*)::int` })
    .from(writeBacks)
    .where(and(inArray(writeBacks.integrationId, integrationIds), inArray(writeBacks.state, [...OPEN_WRITE_BACK_STATES])))
    .groupBy(writeBacks.integrationId);
  return new Map(rows.map((r) => [r.integrationId, r.count]));
}
