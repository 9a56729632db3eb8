import { eq, sql } from "drizzle-orm";
import type { Logger } from "pino";
import type { Application, Job } from "../../contracts/upstream/index.js";
import type { Db } from "../../shared/db/database.js";
import { findIntegration } from "../proxy/integrations/integrations.repository.js";
import { isRetryableUpstreamError, type AtsReader } from "./ats-reader.js";
import { mapApplication, mapJob, type MappedApplication } from "./mapping.js";
import { QUEUES, type JobQueue } from "./queue.js";
import type { LinkedPosition, RecruitingStore } from "./recruiting-store.js";
import { isFinal } from "./sync-run.states.js";
import { syncRuns, type SyncModel, type SyncRunRow } from "./sync.schema.js";
import {
  advanceCheckpoint,
  createSyncRun,
  findOpenSyncRun,
  findSyncRun,
  getCheckpoint,
  nextSyncRun,
  recordSyncPage,
  transitionSyncRun,
} from "./sync-runs.repository.js";
import { matchStage } from "./stage-match.js";

/** Records per upstream page (the upstream's maximum). */
const PAGE_SIZE = 250;
/** Jobs whose stages are read in one request (keeps the `ids` filter, and the URL, short). */
const JOBS_PER_LISTING = 50;

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
  queue: JobQueue;
  reader: AtsReader;
  store: RecruitingStore;
  logger: Logger;
  defaultCandidateStage: string | null;
  checkpointMarginSeconds: number;
  /** Upstream page size (default 250, the maximum); tests use small pages to cross page boundaries. */
  pageSize?: number;
  now?: () => Date;
};

/** Resume point of an applications run, stored as the run's page cursor: where the next page starts. */
type ApplicationsCursor = { position: string; cursor: string | null; done: boolean };

export class SyncCancelled extends Error {
  override name = "SyncCancelled";
}

export function createSyncEngine(deps: SyncEngineDeps) {
  const now = deps.now ?? (() => new Date());
  const pageSize = String(deps.pageSize ?? PAGE_SIZE);

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
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`sync:${req.integrationId}:${model}`}))`);
      const open = await findOpenSyncRun(tx, req.integrationId, model);
      if (open?.state === "queued") {
        // Join it: a FULL request upgrades a DELTA run, and the trigger's follow-up models are added.
        const type = req.type === "FULL" ? "FULL" : open.type;
        const followUp = [...new Set([...open.followUp, ...then])];
        if (type !== open.type || followUp.length !== open.followUp.length) {
          await tx.update(syncRuns).set({ type, followUp, updatedAt: new Date() }).where(eq(syncRuns.id, open.id));
        }
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
      await deps.queue.send(QUEUES.sync, data, { singletonKey: `${req.integrationId}:${model}`, tx });
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
      const next = await nextSyncRun(deps.db, data.integrationId, data.model);
      if (!next) return;
      await runOne(next, attempt);
    }
  }

  async function runOne(first: SyncRunRow, attempt: { last: boolean }): Promise<void> {
    let current = first;
    const log = deps.logger.child({ sync_run: current.id, integration_id: current.integrationId, model: current.model });
    const integration = await findIntegration(deps.db, current.integrationId);
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
      const checkpoint = current.type === "DELTA" ? await getCheckpoint(deps.db, current.integrationId, current.model) : null;
      current = await transitionSyncRun(deps.db, current, "running", {
        startedAt: now(),
        updatedAfter: checkpoint ? new Date(checkpoint.getTime() - deps.checkpointMarginSeconds * 1000) : null,
        lastError: null,
      });
      log.info({ type: current.type, trigger: current.trigger, updated_after: current.updatedAfter }, "sync run started");
    } else {
      log.info({ pages_done: current.pages }, "resuming sync run from its last page");
      current = await transitionSyncRun(deps.db, current, "running");
    }
    try {
      if (current.model === "jobs") await syncJobs(current);
      else await syncApplications(current);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (err instanceof SyncCancelled) return;
      if (isRetryableUpstreamError(err) && !attempt.last) {
        await deps.db.execute(sql`update sync_runs set last_error = ${message}, updated_at = now() where id = ${current.id}`);
        log.warn({ err: message }, "sync run interrupted; it resumes from its last page");
        throw err;
      }
      const fresh = await findSyncRun(deps.db, current.id);
      if (fresh && !isFinal(fresh.state)) await transitionSyncRun(deps.db, fresh, "failed", { lastError: message, finishedAt: now() });
      log.error({ reason: message, pages: current.pages }, "sync run failed");
      return;
    }
    const done = await findSyncRun(deps.db, current.id);
    if (!done || isFinal(done.state)) return; // cancelled meanwhile (integration deleted or paused)
    await deps.db.transaction(async (tx) => {
      await transitionSyncRun(tx, done, "succeeded", { finishedAt: now(), pageCursor: null });
      // The checkpoint is the run's start: records changed while it ran are read again next time.
      await advanceCheckpoint(tx, done.integrationId, done.model, done.startedAt ?? now());
    });
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

  /** Stops at a page boundary when the run was cancelled meanwhile (deletion, pause). */
  async function assertStillRunning(runId: string): Promise<void> {
    const fresh = await findSyncRun(deps.db, runId);
    if (!fresh || fresh.state !== "running") throw new SyncCancelled("sync run cancelled");
  }

  function baseQuery(r: SyncRunRow): Record<string, string> {
    return { page_size: pageSize, ...(r.updatedAfter ? { updated_after: r.updatedAfter.toISOString() } : {}) };
  }

  async function syncJobs(r: SyncRunRow): Promise<void> {
    // Deleted jobs are read too: their positions become inactive.
    const query = { ...baseQuery(r), include_deleted: "true" };
    let cursor = r.pageCursor;
    for (;;) {
      const page = await deps.reader.page<Job>(r.integrationId, "/ats/jobs", cursor ? { ...query, cursor } : query);
      await assertStillRunning(r.id);
      const mapped = page.results.map((job) => mapJob(job, deps.defaultCandidateStage));
      await deps.db.transaction(async (tx) => {
        const counts = await deps.store.upsertPositions(tx, r.orgId, r.integrationId, mapped);
        await recordSyncPage(tx, r.id, counts, page.next);
      });
      if (!page.next) return;
      cursor = page.next;
    }
  }

  /** The upstream stage id of each position's candidate stage (null when the job has no such stage). */
  async function candidateStages(r: SyncRunRow, positions: LinkedPosition[]): Promise<Map<string, string | null>> {
    const stages = new Map<string, string | null>();
    const ids = positions.map((p) => p.upstreamJobIdId);
    let cursor: string | null = null;
    do {
      const page: { results: Job[]; next: string | null } = await deps.reader.page<Job>(r.integrationId, "/ats/jobs", {
        ids: ids.join(","),
        include_deleted: "true",
        page_size: String(PAGE_SIZE),
        ...(cursor ? { cursor } : {}),
      });
      for (const job of page.results) {
        for (const p of positions.filter((x) => x.upstreamJobIdId === job.id)) {
          stages.set(p.id, job.remote_deleted_at ? null : (matchStage(job.stages ?? [], p.candidateStage)?.id ?? null));
        }
      }
      cursor = page.next;
    } while (cursor);
    return stages;
  }

  /**
   * Applications → candidates, position by position (ordered by id), each position's applications
   * in its candidate stage listed page by page. Every page is written in one transaction together
   * with the resume point (position, next cursor), so a resumed run continues exactly there.
   */
  async function syncApplications(r: SyncRunRow): Promise<void> {
    const resume = r.pageCursor ? (JSON.parse(r.pageCursor) as ApplicationsCursor) : null;
    const positions = (await deps.store.linkedPositions(deps.db, r.orgId, r.integrationId)).filter(
      (p) => p.candidateStage && (!resume || p.id > resume.position || (p.id === resume.position && !resume.done)),
    );
    for (let i = 0; i < positions.length; i += JOBS_PER_LISTING) {
      const chunk = positions.slice(i, i + JOBS_PER_LISTING);
      const stages = await candidateStages(r, chunk);
      for (const position of chunk) {
        const stageId = stages.get(position.id) ?? null;
        if (!stageId) {
          // The candidate stage is not a stage of the job (or the job is gone): counted as skipped, once.
          await deps.db.transaction((tx) => recordSyncPage(tx, r.id, { skipped: 1 }, JSON.stringify({ position: position.id, cursor: null, done: true })));
          continue;
        }
        let cursor = resume && position.id === resume.position ? resume.cursor : null;
        const query = { ...baseQuery(r), job_ids: position.upstreamJobIdId, current_stage_ids: stageId };
        for (;;) {
          const page = await deps.reader.page<Application>(r.integrationId, "/ats/applications", cursor ? { ...query, cursor } : query);
          await assertStillRunning(r.id);
          const apps: MappedApplication[] = [];
          let skipped = 0;
          for (const app of page.results) {
            if (app.job_id !== position.upstreamJobIdId || app.current_stage_id !== stageId || app.remote_deleted_at) continue;
            const mapped = mapApplication(app);
            if (mapped) apps.push(mapped);
            else skipped++; // no email address
          }
          const next: ApplicationsCursor = { position: position.id, cursor: page.next, done: !page.next };
          await deps.db.transaction(async (tx) => {
            const c = apps.length
              ? await deps.store.upsertCandidates(tx, r.orgId, position.id, apps, position.acceptedLanguages[0] ?? "en")
              : { created: 0, updated: 0, skipped: 0 };
            await recordSyncPage(tx, r.id, { created: c.created, updated: c.updated, skipped: c.skipped + skipped }, JSON.stringify(next));
          });
          if (!page.next) break;
          cursor = page.next;
        }
      }
    }
  }

  return { start, run };
}
export type SyncEngine = ReturnType<typeof createSyncEngine>;
