import type { Logger } from "pino";
import type { JobStage } from "../../contracts/upstream/index.js";
import type { Db } from "../../shared/db/database.js";
import { mapApplication, mapJob } from "./mapping.js";
import {
  isRetryableUpstreamError,
  type AtsReader,
  type IntegrationLookup,
  type PositionedMappedApplication,
  type RecruitingStore,
  type SyncQueue,
} from "./ports.js";
import { isFinal } from "./sync-run.states.js";
import type { SyncModel, SyncRunRow } from "./sync.tables.js";
import {
  advanceCheckpoint,
  createSyncRun,
  findOpenSyncRun,
  findSyncRun,
  joinSyncRun,
  lockSyncKey,
  nextSyncRun,
  noteSyncRunError,
  pageRecording,
  recordSyncPage,
  startSyncRun,
  transitionSyncRun,
} from "./sync-runs.repository.js";
import { matchStage } from "./stage-match.js";
import { createPageReader, readAhead, type ReadPage } from "./upstream-pages.js";

export type SyncRequest = {
  integrationId: string;
  orgId: string;
  models: SyncModel[];
  type: "FULL" | "DELTA";
  trigger: string;
};

/**
 * What a sync job carries: which (integration, model) has work. The runs themselves are in the
 * database; the worker takes them from there, so a queue job left over from a cancelled run, or a
 * trigger the queue coalesced, can neither lose nor duplicate work.
 */
export type SyncJobData = { integrationId: string; model: SyncModel };

export type SyncEngineDeps = {
  db: Db;
  queue: SyncQueue;
  reader: AtsReader;
  store: RecruitingStore;
  integrations: Pick<IntegrationLookup, "find">;
  logger: Logger;
  defaultCandidateStage: string | null;
  checkpointMarginSeconds: number;
  /** Upstream page size (default 250, the maximum); tests use small pages to cross page boundaries. */
  pageSize?: number;
  now?: () => Date;
};

export class SyncCancelled extends Error {
  override name = "SyncCancelled";
}

export function createSyncEngine(deps: SyncEngineDeps) {
  const now = deps.now ?? (() => new Date());
  const { jobPages, applicationPages, changedApplicationPages } = createPageReader(deps);

  /**
   * Queues a sync of the first model (the others follow it, in order). Under a per-(integration,
   * model) lock, a trigger joins a run that is still queued (a FULL request upgrades a queued
   * DELTA), so triggers that arrive during a run coalesce into one follow-up run. The queue holds
   * at most one waiting job per key (pg-boss `stately`): when one is there already it will do this
   * run too. Answers the run that will do the work.
   */
  async function start(req: SyncRequest): Promise<SyncRunRow> {
    const [model, ...then] = req.models;
    if (!model) throw new Error("a sync needs at least one model");
    return deps.db.transaction(async (tx) => {
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
      await deps.queue.send("sync", data, { singletonKey: `${req.integrationId}:${model}`, tx });
      return run;
    });
  }

  /**
   * The worker for one (integration, model): resumes a run a dead worker left running, then does
   * the queued ones, oldest first. The queue runs one such worker per key at a time. Retryable
   * upstream failures rethrow, so the queue retries the job with backoff and the run resumes.
   */
  async function run(data: SyncJobData, attempt: { last: boolean }): Promise<void> {
    for (;;) {
      const next = (await nextSyncRun(deps.db, data.integrationId, data.model)) ?? (await lastLook(data));
      if (!next) return;
      await runOne(next, attempt);
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
  async function lastLook(data: SyncJobData): Promise<SyncRunRow | null> {
    await lockSyncKey(deps.db, data.integrationId, data.model);
    return nextSyncRun(deps.db, data.integrationId, data.model);
  }

  async function runOne(first: SyncRunRow, attempt: { last: boolean }): Promise<void> {
    let current = first;
    const log = deps.logger.child({ sync_run: current.id, integration_id: current.integrationId, model: current.model });
    const integration = await deps.integrations.find(current.integrationId);
    if (!integration || integration.deletedAt) {
      await transitionSyncRun(deps.db, current, "cancelled", { lastError: "integration deleted", finishedAt: now() });
      log.info({ reason: "integration deleted" }, "sync run cancelled");
      return;
    }
    if (integration.status && integration.status !== "ACTIVE") {
      // Paused: the integration-state-changed handler starts a sync when it is ACTIVE again.
      const reason = `paused: integration is ${integration.status}`;
      await transitionSyncRun(deps.db, current, "cancelled", { lastError: reason, finishedAt: now() });
      log.info({ reason }, "sync run cancelled");
      return;
    }
    if (current.state === "queued") {
      current = await startSyncRun(deps.db, current, now(), deps.checkpointMarginSeconds);
      log.info({ type: current.type, trigger: current.trigger, updated_after: current.updatedAfter }, "sync run started");
    } else {
      log.info({ pages_done: current.pages }, "resuming sync run from its last page");
      current = await transitionSyncRun(deps.db, current, "running");
    }
    let last: SyncRunRow | null;
    try {
      last = current.model === "jobs" ? await syncJobs(current) : await syncApplications(current);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (err instanceof SyncCancelled) return;
      if (isRetryableUpstreamError(err) && !attempt.last) {
        await noteSyncRunError(deps.db, current.id, message);
        log.warn({ err: message }, "sync run interrupted; it resumes from its last page");
        throw err;
      }
      const fresh = await findSyncRun(deps.db, current.id);
      if (fresh && !isFinal(fresh.state)) await transitionSyncRun(deps.db, fresh, "failed", { lastError: message, finishedAt: now() });
      log.error({ reason: message, pages: current.pages }, "sync run failed");
      return;
    }
    // Ended by its last page's transaction, or (a run whose last page was not known as such when
    // written: a full applications run learns it has no more positions only after it) here.
    const done = last?.state === "succeeded" ? last : await finish(current.id);
    if (!done) return; // cancelled meanwhile (integration deleted or paused)
    log.info(
      {
        pages: done.pages,
        created: done.createdCount,
        updated: done.updatedCount,
        unlinked: done.unlinkedCount,
        skipped: done.skippedCount,
        failed: done.failedCount,
        ms: done.startedAt ? now().getTime() - done.startedAt.getTime() : undefined,
      },
      "sync run succeeded",
    );
    if (done.followUp.length) {
      await start({ integrationId: done.integrationId, orgId: done.orgId, models: done.followUp, type: done.type, trigger: done.trigger });
    }
  }

  /** Ends a run still running after its last page: succeeded, and its checkpoint moved, in one transaction. */
  async function finish(id: string): Promise<SyncRunRow | null> {
    const run = await findSyncRun(deps.db, id);
    if (!run || isFinal(run.state)) return null;
    return deps.db.transaction(async (tx) => {
      const done = await transitionSyncRun(tx, run, "succeeded", { finishedAt: now(), pageCursor: null });
      await advanceCheckpoint(tx, done.integrationId, done.model, checkpointOf(done));
      return done;
    });
  }

  /** The checkpoint is the run's start: records changed while it ran are read again next time. */
  const checkpointOf = (run: SyncRunRow) => run.startedAt ?? now();

  /**
   * Writes pages (those the reads had ready, together) in one transaction with the run's counts
   * and the resume point after the last of them; a run cancelled meanwhile (deletion, pause) rolls
   * them back and stops. The run's last page (no resume point) also ends it: succeeded, and its
   * checkpoint moved, committed with its writes. Answers the run as recorded.
   */
  async function writePages(
    r: SyncRunRow,
    pages: ReadPage<unknown>[],
    write: (tx: Parameters<Parameters<Db["transaction"]>[0]>[0]) => Promise<{ created?: number; updated?: number; skipped?: number }>,
  ): Promise<SyncRunRow> {
    const resume = pages[pages.length - 1]!.resume;
    return deps.db.transaction(async (tx) => {
      const counts = await write(tx);
      const finishedAt = resume === null ? now() : undefined;
      const run = await recordSyncPage(tx, r.id, counts, resume, { pages: pages.length, ...(finishedAt ? { finishedAt } : {}) });
      if (!run) throw new SyncCancelled("sync run cancelled");
      if (finishedAt) await advanceCheckpoint(tx, run.integrationId, run.model, checkpointOf(run));
      return run;
    });
  }

  async function syncJobs(r: SyncRunRow): Promise<SyncRunRow | null> {
    let last: SyncRunRow | null = null;
    for await (const pages of readAhead(jobPages(r))) {
      const mapped = pages.flatMap((page) => page.results.map((job) => mapJob(job, deps.defaultCandidateStage)));
      last = await writePages(r, pages, (tx) => deps.store.upsertPositions(tx, r.orgId, r.integrationId, mapped));
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
    r: SyncRunRow,
    pages: ReadPage<unknown>[],
    apps: PositionedMappedApplication[],
    skipped: number,
  ): Promise<SyncRunRow | null> {
    if (deps.store.upsertCandidatesRecorded) {
      const resume = pages[pages.length - 1]!.resume;
      const finishedAt = resume === null ? now() : undefined;
      const recording = pageRecording(r.id, { skipped, pages: pages.length, resume, finishedAt });
      const done = await deps.store.upsertCandidatesRecorded(deps.db, r.orgId, apps, recording);
      if (done && !done.recorded) throw new SyncCancelled("sync run cancelled");
      if (done) return finishedAt ? findSyncRun(deps.db, r.id) : null;
    }
    return writePages(r, pages, async (tx) => {
      const c = apps.length ? await deps.store.upsertCandidates(tx, r.orgId, apps) : { created: 0, updated: 0, skipped: 0 };
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
  async function syncApplications(r: SyncRunRow): Promise<SyncRunRow | null> {
    let last: SyncRunRow | null = null;
    if (r.type === "DELTA" && r.updatedAfter) {
      for await (const pages of readAhead(changedApplicationPages(r))) {
        const apps: PositionedMappedApplication[] = [];
        let skipped = 0;
        for (const page of pages)
          for (const app of page.results) {
            const position = app.job_id ? page.positions.get(app.job_id) : undefined;
            if (!position || !app.current_stage || app.remote_deleted_at) continue;
            if (!matchStage([app.current_stage as JobStage], position.candidateStage)) continue;
            const mapped = mapApplication(app);
            if (mapped) apps.push({ ...mapped, positionId: position.id, language: position.acceptedLanguages[0] ?? "en" });
            else skipped++; // no email address
          }
        last = await writeApplications(r, pages, apps, skipped);
      }
      return last;
    }
    for await (const pages of readAhead(applicationPages(r))) {
      const apps: PositionedMappedApplication[] = [];
      let skipped = 0;
      for (const page of pages) {
        const byJob = new Map(page.chunk.map((c) => [c.j, c]));
        skipped += page.skippedPositions;
        for (const app of page.results) {
          const entry = app.job_id ? byJob.get(app.job_id) : undefined;
          if (!entry?.s || app.current_stage_id !== entry.s || app.remote_deleted_at) continue;
          const mapped = mapApplication(app);
          if (mapped) apps.push({ ...mapped, positionId: entry.p, language: entry.l });
          else skipped++; // no email address
        }
      }
      last = await writeApplications(r, pages, apps, skipped);
    }
    return last;
  }

  return { start, run };
}
export type SyncEngine = ReturnType<typeof createSyncEngine>;
