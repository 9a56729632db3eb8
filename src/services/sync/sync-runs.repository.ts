import { and, desc, eq, inArray, type SQL, sql } from "drizzle-orm";
import type { Queryable, RawQuery } from "../../shared/db/database.js";
import { assertTransition, type SyncRunState } from "./sync-run.states.js";
import { syncCheckpoints, syncRuns, type SyncModel, type SyncRunRow } from "./sync.tables.js";

export type NewSyncRun = {
  integrationId: string;
  orgId: string;
  model: SyncModel;
  type: "FULL" | "DELTA";
  trigger: string;
  followUp?: SyncModel[];
};

export async function createSyncRun(q: Queryable, run: NewSyncRun): Promise<SyncRunRow> {
  const [row] = await q.insert(syncRuns).values(run).returning();
  return row!;
}

/** Serialises the triggers of one (integration, model) for the rest of the caller's transaction. */
export async function lockSyncKey(q: Queryable, integrationId: string, model: SyncModel): Promise<void> {
  await q.execute(sql`select pg_advisory_xact_lock(hashtext(${`sync:${integrationId}:${model}`}))`);
}

/** A trigger joins a queued run: its type (a FULL request upgrades a DELTA) and follow-up models. */
export async function joinSyncRun(q: Queryable, id: string, patch: Pick<SyncRunRow, "type" | "followUp">): Promise<void> {
  await q
    .update(syncRuns)
    .set({ ...patch, updatedAt: new Date() })
    .where(eq(syncRuns.id, id));
}

/** Notes a failure the run will resume from (it stays running). */
export async function noteSyncRunError(q: Queryable, id: string, message: string): Promise<void> {
  await q.update(syncRuns).set({ lastError: message, updatedAt: new Date() }).where(eq(syncRuns.id, id));
}

export async function findSyncRun(q: Queryable, id: string, opts: { lock?: boolean } = {}): Promise<SyncRunRow | null> {
  const query = q.select().from(syncRuns).where(eq(syncRuns.id, id));
  const [row] = opts.lock ? await query.for("update") : await query;
  return row ?? null;
}

/** A queued or running run of this integration and model, if any (the one a new trigger joins). */
export async function findOpenSyncRun(q: Queryable, integrationId: string, model: SyncModel): Promise<SyncRunRow | null> {
  const [row] = await q
    .select()
    .from(syncRuns)
    .where(and(eq(syncRuns.integrationId, integrationId), eq(syncRuns.model, model), inArray(syncRuns.state, ["queued", "running"])))
    .orderBy(desc(syncRuns.createdAt))
    .limit(1);
  return row ?? null;
}

/**
 * The run a worker for (integration, model) should do next: one left running by a worker that died
 * (resumed from its cursor), else the oldest queued one.
 */
export async function nextSyncRun(q: Queryable, integrationId: string, model: SyncModel): Promise<SyncRunRow | null> {
  const [row] = await q
    .select()
    .from(syncRuns)
    .where(and(eq(syncRuns.integrationId, integrationId), eq(syncRuns.model, model), inArray(syncRuns.state, ["queued", "running"])))
    .orderBy(sql`${syncRuns.state} = 'running' desc`, syncRuns.createdAt)
    .limit(1);
  return row ?? null;
}

/** Moves a run to `to`, checking the transition table; returns the updated row. */
export async function transitionSyncRun(
  q: Queryable,
  run: SyncRunRow,
  to: SyncRunState,
  patch: Partial<Pick<SyncRunRow, "lastError" | "startedAt" | "finishedAt" | "updatedAfter" | "pageCursor">> = {},
): Promise<SyncRunRow> {
  assertTransition(run.state, to);
  const [row] = await q
    .update(syncRuns)
    .set({ ...patch, state: to, updatedAt: new Date() })
    .where(eq(syncRuns.id, run.id))
    .returning();
  return row!;
}

export type PageCounts = { created?: number; updated?: number; unlinked?: number; skipped?: number; failed?: number };

/**
 * Starts a queued run from `startedAt`. An incremental (DELTA) run reads the changes since its
 * checkpoint less `marginSeconds` (no checkpoint: everything), read in the same statement: one
 * round trip where a lookup and an update took two.
 */
export async function startSyncRun(q: Queryable, run: SyncRunRow, startedAt: Date, marginSeconds: number): Promise<SyncRunRow> {
  assertTransition(run.state, "running");
  const since = sql`(select ${syncCheckpoints.syncedUntil} - ${marginSeconds}::int * interval '1 second' from ${syncCheckpoints}
     where ${syncCheckpoints.integrationId} = ${run.integrationId} and ${syncCheckpoints.model} = ${run.model})`;
  const [row] = await q
    .update(syncRuns)
    .set({ state: "running", startedAt, lastError: null, updatedAfter: run.type === "DELTA" ? since : null, updatedAt: new Date() })
    .where(eq(syncRuns.id, run.id))
    .returning();
  return row!;
}

/**
 * Records written pages (`pages` upstream pages, one by default): counts add up and the cursor of
 * the NEXT page is stored, in the same transaction as the pages' writes, so a run resumed after a
 * crash neither skips nor double-counts. With `finishedAt` (the run's last page) the run succeeds
 * in the same statement. Answers the run, or null when it is no longer running (cancelled
 * meanwhile): the caller rolls the pages back. (A page written by the recruiting store's one
 * statement is recorded there, in the same way: syncPageRecording in the recruiting API.)
 */
export async function recordSyncPage(
  q: Queryable,
  runId: string,
  counts: PageCounts,
  nextCursor: string | null,
  opts: { pages?: number; finishedAt?: Date } = {},
): Promise<SyncRunRow | null> {
  const [row] = await q
    .update(syncRuns)
    .set({
      createdCount: sql`${syncRuns.createdCount} + ${counts.created ?? 0}`,
      updatedCount: sql`${syncRuns.updatedCount} + ${counts.updated ?? 0}`,
      unlinkedCount: sql`${syncRuns.unlinkedCount} + ${counts.unlinked ?? 0}`,
      skippedCount: sql`${syncRuns.skippedCount} + ${counts.skipped ?? 0}`,
      failedCount: sql`${syncRuns.failedCount} + ${counts.failed ?? 0}`,
      pages: sql`${syncRuns.pages} + ${opts.pages ?? 1}`,
      pageCursor: nextCursor,
      ...(opts.finishedAt ? { state: "succeeded" as const, finishedAt: opts.finishedAt } : {}),
      updatedAt: new Date(),
    })
    .where(and(eq(syncRuns.id, runId), eq(syncRuns.state, "running")))
    .returning();
  return row ?? null;
}

/**
 * A quiet run (of `sync_runs` as `x`): an incremental run that succeeded and changed nothing, such
 * as each of the runs the upstream's echo of a write-back starts (its stage move, link and note
 * each send data-changed). The history folds it into the run before it.
 */
export const quietRun = (x: string): SQL =>
  sql.raw(
    `(${x}.state = 'succeeded' and ${x}.type = 'DELTA' and ${x}.created_count + ${x}.updated_count + ${x}.unlinked_count + ${x}.skipped_count + ${x}.failed_count = 0)`,
  );

/**
 * Whether the history lists run `x` on its own: any run but a quiet one, and a quiet one with no
 * run of its integration and model before it (the quiet runs after it fold into it).
 */
export const listedRun = (x: string): SQL =>
  sql`(not ${quietRun(x)} or not exists (select 1 from sync_runs p where p.integration_id = ${sql.raw(x)}.integration_id
    and p.model = ${sql.raw(x)}.model and p.created_at < ${sql.raw(x)}.created_at))`;

/** An integration's runs, newest first: quiet ones folded (left out, counted by quietRunsAfter) unless `includeQuiet`. */
export async function listSyncRuns(
  q: Queryable,
  integrationId: string,
  opts: { limit?: number; includeQuiet?: boolean } = {},
): Promise<SyncRunRow[]> {
  const listed = opts.includeQuiet ? undefined : sql`${listedRun("sync_runs")}`;
  return q
    .select()
    .from(syncRuns)
    .where(and(eq(syncRuns.integrationId, integrationId), listed))
    .orderBy(desc(syncRuns.createdAt))
    .limit(opts.limit ?? 20);
}

export type QuietRunsRow = { count: number; lastAt: Date };

/**
 * The quiet runs folded into each of these runs: those of its integration and model after it and
 * before the next run that is not quiet. Answers them by run id (a run with none is absent).
 */
export async function quietRunsAfter(q: Queryable, runIds: string[]): Promise<Map<string, QuietRunsRow>> {
  if (runIds.length === 0) return new Map();
  const result = await q.execute(sql`
    select r.id, f.n::int as count, f.last_at
      from sync_runs r
      cross join lateral (
        select count(*) as n, max(x.created_at) as last_at from sync_runs x
         where x.integration_id = r.integration_id and x.model = r.model and x.created_at > r.created_at and ${quietRun("x")}
           and x.created_at < coalesce((select min(y.created_at) from sync_runs y
                 where y.integration_id = r.integration_id and y.model = r.model and y.created_at > r.created_at
                   and not ${quietRun("y")}), 'infinity'::timestamptz)) f
     where r.id in (${sql.join(
       runIds.map((id) => sql`${id}::uuid`),
       sql`, `,
     )}) and f.n > 0`);
  const rows = (result as unknown as { rows: { id: string; count: number; last_at: Date | string }[] }).rows;
  return new Map(rows.map((r) => [r.id, { count: r.count, lastAt: new Date(r.last_at) }]));
}

/** Cancels the queued and running runs of an integration (it was deleted or paused); answers them. */
export async function cancelOpenSyncRuns(q: Queryable, integrationId: string, reason: string): Promise<SyncRunRow[]> {
  return q
    .update(syncRuns)
    .set({ state: "cancelled", lastError: reason, finishedAt: new Date(), updatedAt: new Date() })
    .where(and(eq(syncRuns.integrationId, integrationId), inArray(syncRuns.state, ["queued", "running"])))
    .returning();
}

/** Moves the checkpoint forward only (an older run finishing late must not move it back). */
export async function advanceCheckpoint(q: Queryable, integrationId: string, model: SyncModel, until: Date): Promise<void> {
  await q
    .insert(syncCheckpoints)
    .values({ integrationId, model, syncedUntil: until })
    .onConflictDoUpdate({
      target: [syncCheckpoints.integrationId, syncCheckpoints.model],
      set: { syncedUntil: sql`greatest(${syncCheckpoints.syncedUntil}, excluded.synced_until)`, updatedAt: new Date() },
    });
}

/**
 * How far behind each checkpoint of a live integration is, in seconds (the sync-lag metric). The
 * join keeps the checkpoints of deleted integrations out; it reads only the proxy's `deleted_at`.
 */
export async function checkpointLags(query: RawQuery): Promise<{ integration_id: string; model: string; seconds: number }[]> {
  const rows = await query<{ integration_id: string; model: string; seconds: number }>(
    "select c.integration_id, c.model, extract(epoch from now() - c.synced_until)::float8 as seconds from sync_checkpoints c join integrations i on i.id = c.integration_id where i.deleted_at is null",
  );
  return rows.map((r) => ({ ...r, seconds: Number(r.seconds) }));
}

/** The newest run of each model of each of these integrations (one query, DISTINCT ON). */
export async function latestSyncRuns(q: Queryable, integrationIds: string[]): Promise<SyncRunRow[]> {
  if (integrationIds.length === 0) return [];
  return q
    .selectDistinctOn([syncRuns.integrationId, syncRuns.model])
    .from(syncRuns)
    .where(inArray(syncRuns.integrationId, integrationIds))
    .orderBy(syncRuns.integrationId, syncRuns.model, desc(syncRuns.createdAt), desc(syncRuns.id));
}
