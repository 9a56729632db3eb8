import type { Logger } from "pino";
import type { JobStage } from "../../contracts/upstream/index.js";
import type { Db, Queryable } from "../../shared/db/database.js";
import type { IntegrationLookup } from "../../shared/ports/integrations.js";
import type { PositionedApplication, RecruitingStore } from "../../shared/ports/recruiting-sync.js";
import { isRetryableUpstreamError, type AtsReader } from "./ats-reader.js";
import { mapApplication, mapJob } from "./mapping.js";
import { isFinal } from "./sync-run.states.js";
import type { SyncModel, SyncRunRow } from "./sync.tables.js";
import {
  advanceCheckpoint,
  cancelOpenSyncRuns,
  createSyncRun,
  findOpenSyncRun,
  findSyncRun,
  joinSyncRun,
  lockSyncKey,
  nextSyncRun,
  noteSyncRunError,
  recordSyncPage,
  startSyncRun,
  transitionSyncRun,
} from "./sync-runs.repository.js";
import { matchStage } from "./stage-match.js";
import { runFinished, type SyncEvents } from "./sync-events.js";
import { NO_EVENTS_OUT } from "../../shared/no-events-out.js";
import { syncPriority } from "./sync-priority.js";
import { createPageReader, readAhead, type ReadPage } from "./upstream-pages.js";

export type SyncRequest = {
  integrationId: string;
  orgId: string;
  models: SyncModel[];
  type: "FULL" | "DELTA";
  trigger: string;
  /**
   * Queue the run to start this many seconds from now (a write-back's echo: the upstream's
   * data-changed after each of the write-back's calls join the one run still waiting).
   */
  startAfterSeconds?: number;
};

/**
 * What a sync job carries: which (integration, model) has work. The runs themselves are in the
 * database; the worker takes them from there, so a queue job left over from a cancelled run, or a
 * trigger the queue coalesced, can neither lose nor duplicate work.
 */
export type SyncJobData = { integrationId: string; model: SyncModel };

/** The job queue, as far as the engine sends jobs (inside the caller's transaction when `tx` is given). */
export interface SyncQueue {
  send(
    name: "sync",
    data: object,
    opts?: { singletonKey?: string; priority?: number; orgId?: string; startAfter?: number; tx?: Queryable },
  ): Promise<string | null>;
}

export type SyncEngineDeps = {
  db: Db;
  queue: SyncQueue;
  reader: AtsReader;
  store: RecruitingStore<Queryable, Db>;
  /** The integration's state, and (IntegrationOwnership) whether it still belongs to the run's organisation. */
  integrations: Pick<IntegrationLookup, "find" | "belongsTo">;
  logger: Logger;
  defaultCandidateStage: string | null;
  checkpointMarginSeconds: number;
  /** Upstream page size (default 250, the maximum); tests use small pages to cross page boundaries. */
  pageSize?: number;
  now?: () => Date;
  /** Where a run's end is recorded as `sync_run.finished` (outbound webhooks), in the run's last transaction. */
  events?: SyncEvents;
};

export class SyncCancelled extends Error {
  override name = "SyncCancelled";
}

/** What the engine's steps share: the deps, with the clock, the outbound events and the page reader filled in. */
type Engine = SyncEngineDeps & { now: () => Date; events: SyncEvents; pages: ReturnType<typeof createPageReader> };

/**
 * Queues a sync of the first model (the others follow it, in order). Under a per-(integration,
 * model) lock, a trigger joins a run that is still queued (a FULL request upgrades a queued
 * DELTA), so triggers that arrive during a run coalesce into one follow-up run. The queue holds
 * at most one waiting job per key (pg-boss `stately`): when one is there already it will do this
 * run too. Answers the run that will do the work.
 */
async function start(ctx: Engine, req: SyncRequest): Promise<SyncRunRow> {
  const [model, ...then] = req.models;
  if (!model) throw new Error("a sync needs at least one model");
  return ctx.db.transaction(async (tx) => {
    await lockSyncKey(tx, req.integrationId, model);
    const open = await findOpenSyncRun(tx, req.integrationId, model);
    if (open?.state === "queued") {
      // Join it: a FULL request upgrades a DELTA run, and the trigger's follow-up models are added.
      const type = req.type === "FULL" ? "FULL" : open.type;
      const followUp = [...new Set([...open.followUp, ...then])];
      if (type !== open.type || followUp.length !== open.followUp.length) await joinSyncRun(tx, open.id, { type, followUp });
      return { ...open, type, followUp };
    }
    const run = await createSyncRun(tx, {
      integrationId: req.integrationId,
      orgId: req.orgId,
      model,
      type: req.type,
      trigger: req.trigger,
      followUp: then,
    });
    const data: SyncJobData = { integrationId: req.integrationId, model };
    // Filed under its organisation (its share of the sync workers) and its trigger's priority.
    const priority = syncPriority(req.trigger);
    const later = req.startAfterSeconds ? { startAfter: req.startAfterSeconds } : {};
    await ctx.queue.send("sync", data, { singletonKey: `${req.integrationId}:${model}`, priority, orgId: req.orgId, tx, ...later });
    return run;
  });
}

/**
 * The worker for one (integration, model): resumes a run a dead worker left running, then does
 * the queued ones, oldest first. The queue runs one such worker per key at a time. Retryable
 * upstream failures rethrow, so the queue retries the job with backoff and the run resumes.
 */
async function run(ctx: Engine, data: SyncJobData, attempt: { last: boolean }): Promise<void> {
  for (;;) {
    const next = (await nextSyncRun(ctx.db, data.integrationId, data.model)) ?? (await lastLook(ctx, data));
    if (!next) return;
    await runOne(ctx, next, attempt);
  }
}

/**
 * Before a worker gives its job back, it looks for a queued run once more, after the key's lock.
 * A trigger holds that lock from its look at the open runs to its commit. When the queue drops its
 * job (`stately`: one is already waiting for the key), its run relies on the worker of that
 * waiting job, or on the one still looping. Without the lock, a worker could look between the
 * trigger's insert and its commit, miss the run, and end; the waiting job could do the same. The
 * run would then stay queued with no job to run it. Taking the lock (released at once: its
 * statement is its own transaction) waits out any trigger under way; the look is the next
 * statement, so it sees what that trigger committed. A trigger starting after it finds this job
 * still active, so its own job is queued, or meets a waiting job whose worker looks in turn.
 */
async function lastLook(ctx: Engine, data: SyncJobData): Promise<SyncRunRow | null> {
  await lockSyncKey(ctx.db, data.integrationId, data.model);
  return nextSyncRun(ctx.db, data.integrationId, data.model);
}

async function runOne(ctx: Engine, first: SyncRunRow, attempt: { last: boolean }): Promise<void> {
  let current = first;
  const log = ctx.logger.child({ sync_run: current.id, integration_id: current.integrationId, model: current.model });
  const integration = await ctx.integrations.find(current.integrationId);
  if (!integration || integration.deletedAt) {
    await endRun(ctx, current, "cancelled", { lastError: "integration deleted", finishedAt: ctx.now() });
    log.info({ reason: "integration deleted" }, "sync run cancelled");
    return;
  }
  if (!(await ctx.integrations.belongsTo(current.integrationId, current.orgId))) {
    // A run queued for an organisation that does not own the integration links nothing into it.
    const reason = "the integration does not belong to the run's organisation";
    await transitionSyncRun(ctx.db, current, "cancelled", { lastError: reason, finishedAt: ctx.now() });
    log.warn({ reason, org_id: current.orgId }, "sync run cancelled");
    return;
  }
  if (integration.status && integration.status !== "ACTIVE") {
    // Paused: the integration-state-changed handler starts a sync when it is ACTIVE again.
    const reason = `paused: integration is ${integration.status}`;
    await endRun(ctx, current, "cancelled", { lastError: reason, finishedAt: ctx.now() });
    log.info({ reason }, "sync run cancelled");
    return;
  }
  if (current.state === "queued") {
    current = await startSyncRun(ctx.db, current, ctx.now(), ctx.checkpointMarginSeconds);
    log.info({ type: current.type, trigger: current.trigger, updated_after: current.updatedAfter }, "sync run started");
  } else {
    log.info({ pages_done: current.pages }, "resuming sync run from its last page");
    current = await transitionSyncRun(ctx.db, current, "running");
  }
  let last: SyncRunRow | null;
  try {
    last = current.model === "jobs" ? await syncJobs(ctx, current) : await syncApplications(ctx, current);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (err instanceof SyncCancelled) return;
    if (isRetryableUpstreamError(err) && !attempt.last) {
      await noteSyncRunError(ctx.db, current.id, message);
      log.warn({ err: message }, "sync run interrupted; it resumes from its last page");
      throw err;
    }
    const fresh = await findSyncRun(ctx.db, current.id);
    if (fresh && !isFinal(fresh.state)) await endRun(ctx, fresh, "failed", { lastError: message, finishedAt: ctx.now() });
    log.error({ reason: message, pages: current.pages }, "sync run failed");
    return;
  }
  // Ended by its last page's transaction, or (a run whose last page was not known as such when
  // written: a full applications run learns it has no more positions only after it) here.
  const done = last?.state === "succeeded" ? last : await finish(ctx, current.id);
  if (!done) return; // cancelled meanwhile (integration deleted or paused)
  log.info(
    {
      pages: done.pages,
      created: done.createdCount,
      updated: done.updatedCount,
      unlinked: done.unlinkedCount,
      skipped: done.skippedCount,
      failed: done.failedCount,
      ms: done.startedAt ? ctx.now().getTime() - done.startedAt.getTime() : undefined,
    },
    "sync run succeeded",
  );
  if (done.followUp.length) {
    await start(ctx, {
      integrationId: done.integrationId,
      orgId: done.orgId,
      models: done.followUp,
      type: done.type,
      trigger: done.trigger,
    });
  }
}

/** Ends a run still running after its last page: succeeded, and its checkpoint moved, in one transaction. */
async function finish(ctx: Engine, id: string): Promise<SyncRunRow | null> {
  const run = await findSyncRun(ctx.db, id);
  if (!run || isFinal(run.state)) return null;
  const ended = await ctx.db.transaction(async (tx) => {
    const done = await transitionSyncRun(tx, run, "succeeded", { finishedAt: ctx.now(), pageCursor: null });
    await advanceCheckpoint(tx, done.integrationId, done.model, checkpointOf(ctx, done));
    await ctx.events.record(tx, [runFinished(done)]);
    return done;
  });
  ctx.events.committed([ended.orgId]);
  return ended;
}

/** Ends a run (cancelled or failed) and records its `sync_run.finished` with it. */
async function endRun(
  ctx: Engine,
  run: SyncRunRow,
  to: "cancelled" | "failed",
  patch: Parameters<typeof transitionSyncRun>[3],
): Promise<void> {
  await ctx.db.transaction(async (tx) => ctx.events.record(tx, [runFinished(await transitionSyncRun(tx, run, to, patch))]));
  ctx.events.committed([run.orgId]);
}

/** The checkpoint is the run's start: records changed while it ran are read again next time. */
const checkpointOf = (ctx: Engine, run: SyncRunRow) => run.startedAt ?? ctx.now();

/**
 * Writes pages (those the reads had ready, together) in one transaction with the run's counts
 * and the resume point after the last of them; a run cancelled meanwhile (deletion, pause) rolls
 * them back and stops. The run's last page (no resume point) also ends it: succeeded, and its
 * checkpoint moved, committed with its writes. Answers the run as recorded.
 */
async function writePages(
  ctx: Engine,
  r: SyncRunRow,
  pages: ReadPage<unknown>[],
  write: (tx: Parameters<Parameters<Db["transaction"]>[0]>[0]) => Promise<{ created?: number; updated?: number; skipped?: number }>,
): Promise<SyncRunRow> {
  const resume = pages[pages.length - 1]!.resume;
  const written = await ctx.db.transaction(async (tx) => {
    const counts = await write(tx);
    const finishedAt = resume === null ? ctx.now() : undefined;
    const run = await recordSyncPage(tx, r.id, counts, resume, { pages: pages.length, ...(finishedAt ? { finishedAt } : {}) });
    if (!run) throw new SyncCancelled("sync run cancelled");
    if (finishedAt) {
      await advanceCheckpoint(tx, run.integrationId, run.model, checkpointOf(ctx, run));
      await ctx.events.record(tx, [runFinished(run)]);
    }
    return run;
  });
  ctx.events.committed([r.orgId]);
  return written;
}

async function syncJobs(ctx: Engine, r: SyncRunRow): Promise<SyncRunRow | null> {
  let last: SyncRunRow | null = null;
  for await (const pages of readAhead(ctx.pages.jobPages(r))) {
    const mapped = pages.flatMap((page) => page.results.map((job) => mapJob(job, ctx.defaultCandidateStage)));
    last = await writePages(ctx, r, pages, (tx) => ctx.store.upsertPositions(tx, r.orgId, r.integrationId, mapped));
  }
  return last;
}

/**
 * Writes pages of applications (already matched to positions) with their counts and resume point:
 * in one statement with their record when the store can (one round trip, no transaction: the
 * round trips of begin, record and commit were about a tenth of a full sync), else, and when an
 * application meets a candidate by email that is not its own, in a transaction (writePages).
 * Answers the run as recorded, or null for a page recorded by its statement that did not end it.
 */
async function writeApplications(
  ctx: Engine,
  r: SyncRunRow,
  pages: ReadPage<unknown>[],
  apps: PositionedApplication[],
  skipped: number,
): Promise<SyncRunRow | null> {
  if (ctx.store.upsertCandidatesRecorded) {
    const resume = pages[pages.length - 1]!.resume;
    const finishedAt = resume === null ? ctx.now() : undefined;
    const record = { runId: r.id, skipped, pages: pages.length, resume, finishedAt };
    const done = await ctx.store.upsertCandidatesRecorded(ctx.db, r.orgId, apps, record);
    ctx.events.committed([r.orgId]);
    if (done && !done.recorded) throw new SyncCancelled("sync run cancelled");
    if (done) return finishedAt ? findSyncRun(ctx.db, r.id) : null;
  }
  return writePages(ctx, r, pages, async (tx) => {
    const c = apps.length ? await ctx.store.upsertCandidates(tx, r.orgId, apps) : { created: 0, updated: 0, skipped: 0 };
    return { created: c.created, updated: c.updated, skipped: c.skipped + skipped };
  });
}

/**
 * Applications → candidates: every page is written with one set-based upsert (all its positions
 * at once) that commits together with the resume point (writeApplications), so a resumed run
 * continues exactly after the last page written. A full run lists each chunk of positions' candidate stages; an
 * incremental one reads only the changed applications and keeps those now in their position's
 * candidate stage (matched by the stage's id, then name).
 */
async function syncApplications(ctx: Engine, r: SyncRunRow): Promise<SyncRunRow | null> {
  let last: SyncRunRow | null = null;
  if (r.type === "DELTA" && r.updatedAfter) {
    for await (const pages of readAhead(ctx.pages.changedApplicationPages(r))) {
      const apps: PositionedApplication[] = [];
      let skipped = 0;
      for (const page of pages)
        for (const app of page.results) {
          const position = app.job_id ? page.positions.get(app.job_id) : undefined;
          if (!position || !app.current_stage || app.remote_deleted_at) continue;
          if (!matchStage([app.current_stage as JobStage], position.candidateStage)) continue;
          const mapped = mapApplication(app, { id: position.id, language: position.acceptedLanguages[0] ?? "en" });
          if (mapped) apps.push(mapped);
          else skipped++; // no email address
        }
      last = await writeApplications(ctx, r, pages, apps, skipped);
    }
    return last;
  }
  for await (const pages of readAhead(ctx.pages.applicationPages(r))) {
    const apps: PositionedApplication[] = [];
    let skipped = 0;
    for (const page of pages) {
      const byJob = new Map(page.chunk.map((c) => [c.j, c]));
      skipped += page.skippedPositions;
      for (const app of page.results) {
        const entry = app.job_id ? byJob.get(app.job_id) : undefined;
        if (!entry?.s || app.current_stage_id !== entry.s || app.remote_deleted_at) continue;
        const mapped = mapApplication(app, { id: entry.p, language: entry.l });
        if (mapped) apps.push(mapped);
        else skipped++; // no email address
      }
    }
    last = await writeApplications(ctx, r, pages, apps, skipped);
  }
  return last;
}

/** Cancels the integration's queued and running runs (it was deleted or paused), each with its `sync_run.finished`. */
async function cancelOpenRuns(ctx: Engine, integrationId: string, reason: string): Promise<number> {
  const cancelled = await ctx.db.transaction(async (tx) => {
    const runs = await cancelOpenSyncRuns(tx, integrationId, reason);
    await ctx.events.record(tx, runs.map(runFinished));
    return runs;
  });
  ctx.events.committed(cancelled.map((r) => r.orgId));
  return cancelled.length;
}

/**
 * The sync engine: triggers queue runs (start), the worker runs them page by page (run), and an
 * integration's deletion or pause cancels them (cancelOpenRuns).
 */
export function createSyncEngine(deps: SyncEngineDeps) {
  const ctx: Engine = { ...deps, now: deps.now ?? (() => new Date()), events: deps.events ?? NO_EVENTS_OUT, pages: createPageReader(deps) };
  return {
    start: (req: SyncRequest) => start(ctx, req),
    run: (data: SyncJobData, attempt: { last: boolean }) => run(ctx, data, attempt),
    cancelOpenRuns: (integrationId: string, reason: string) => cancelOpenRuns(ctx, integrationId, reason),
  };
}
export type SyncEngine = ReturnType<typeof createSyncEngine>;
