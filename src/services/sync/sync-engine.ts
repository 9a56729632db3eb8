import type { Logger } from "pino";
import type { Application, Job, JobStage } from "../../contracts/upstream/index.js";
import type { Db } from "../../shared/db/database.js";
import { mapApplication, mapJob } from "./mapping.js";
import {
  isRetryableUpstreamError,
  type AtsReader,
  type IntegrationLookup,
  type LinkedPosition,
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
  getCheckpoint,
  joinSyncRun,
  lockSyncKey,
  nextSyncRun,
  noteSyncRunError,
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

/** A position whose candidate stage's applications are listed: position, job, stage (null: not a stage of the job), language. */
type ChunkEntry = { p: string; j: string; s: string | null; l: string };
/**
 * Resume point of an applications run, stored as the run's page cursor: `after` the last position
 * of the chunk being (or last) listed; while a chunk is listed, the chunk itself and the cursor of
 * its next page, so a resumed run repeats exactly the same query.
 */
type ApplicationsCursor = { after: string; chunk?: ChunkEntry[]; cursor?: string };

/** A page read ahead of the writes, with what its transaction stores besides. */
type ReadPage<T> = { results: T[]; resume: string | null };

/**
 * Reads one item ahead of the consumer: while it writes a page, the next one is already being
 * fetched (the engine's two halves, upstream reads and database writes, overlap).
 */
async function* readAhead<T>(source: AsyncGenerator<T>): AsyncGenerator<T> {
  let next = source.next();
  try {
    for (;;) {
      const item = await next;
      if (item.done) return;
      next = source.next();
      next.catch(() => {}); // awaited on the next turn; a failure is handled there
      yield item.value;
    }
  } finally {
    // The consumer stopped early (cancelled or failed): let the read in flight settle, then close the source.
    await next.catch(() => undefined);
    await source.return(undefined);
  }
}

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
      const next = await nextSyncRun(deps.db, data.integrationId, data.model);
      if (!next) return;
      await runOne(next, attempt);
    }
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
        await noteSyncRunError(deps.db, current.id, message);
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

  function baseQuery(r: SyncRunRow): Record<string, string> {
    return { page_size: pageSize, ...(r.updatedAfter ? { updated_after: r.updatedAfter.toISOString() } : {}) };
  }

  /**
   * Writes one page in one transaction with the run's counts and resume point; a run cancelled
   * meanwhile (deletion, pause) rolls the page back and stops.
   */
  async function writePage(
    r: SyncRunRow,
    resume: string | null,
    write: (tx: Parameters<Parameters<Db["transaction"]>[0]>[0]) => Promise<{ created?: number; updated?: number; skipped?: number }>,
  ) {
    await deps.db.transaction(async (tx) => {
      const counts = await write(tx);
      if (!(await recordSyncPage(tx, r.id, counts, resume))) throw new SyncCancelled("sync run cancelled");
    });
  }

  async function* jobPages(r: SyncRunRow): AsyncGenerator<ReadPage<Job>> {
    // Deleted jobs are read too: their positions become inactive.
    const query = { ...baseQuery(r), include_deleted: "true" };
    let cursor = r.pageCursor;
    for (;;) {
      const page = await deps.reader.page<Job>(r.integrationId, "/ats/jobs", cursor ? { ...query, cursor } : query);
      yield { results: page.results, resume: page.next };
      if (!page.next) return;
      cursor = page.next;
    }
  }

  async function syncJobs(r: SyncRunRow): Promise<void> {
    for await (const page of readAhead(jobPages(r))) {
      const mapped = page.results.map((job) => mapJob(job, deps.defaultCandidateStage));
      await writePage(r, page.resume, (tx) => deps.store.upsertPositions(tx, r.orgId, r.integrationId, mapped));
    }
  }

  /** The upstream stage id of each position's candidate stage (null when the job has no such stage or is gone). */
  async function candidateStages(
    r: SyncRunRow,
    positions: { id: string; upstreamJobIdId: string; candidateStage: string | null }[],
  ): Promise<Map<string, string | null>> {
    const stages = new Map<string, string | null>();
    const byJob = new Map(positions.map((p) => [p.upstreamJobIdId, p]));
    let cursor: string | null = null;
    do {
      const page: { results: Job[]; next: string | null } = await deps.reader.page<Job>(r.integrationId, "/ats/jobs", {
        ids: [...byJob.keys()].join(","),
        include_deleted: "true",
        page_size: String(PAGE_SIZE),
        ...(cursor ? { cursor } : {}),
      });
      for (const job of page.results) {
        const p = byJob.get(job.id);
        if (p) stages.set(p.id, job.remote_deleted_at ? null : (matchStage(job.stages ?? [], p.candidateStage)?.id ?? null));
      }
      cursor = page.next;
    } while (cursor);
    return stages;
  }

  /** The next chunk of linked positions after `after`, with their candidate stages. */
  async function nextChunk(r: SyncRunRow, after: string | null): Promise<ChunkEntry[]> {
    const positions = await deps.store.linkedPositions(deps.db, r.orgId, r.integrationId, { after, limit: JOBS_PER_LISTING });
    if (!positions.length) return [];
    const stages = await candidateStages(r, positions);
    return positions.map((p) => ({ p: p.id, j: p.upstreamJobIdId, s: stages.get(p.id) ?? null, l: p.acceptedLanguages[0] ?? "en" }));
  }

  /**
   * The applications in the candidate stages of the linked positions, chunk by chunk (positions
   * ordered by id, `JOBS_PER_LISTING` at a time, never all of them at once): one listing per chunk
   * filtered by its jobs and stages, page by page. Each page carries the resume point its
   * transaction stores: the chunk and the next page's cursor, or the chunk's end.
   */
  async function* applicationPages(
    r: SyncRunRow,
  ): AsyncGenerator<ReadPage<Application> & { chunk: ChunkEntry[]; skippedPositions: number }> {
    const resume = parseApplicationsCursor(r.pageCursor);
    let after = resume?.after ?? null;
    let chunk = resume?.chunk ?? null;
    let cursor = resume?.cursor ?? null;
    for (;;) {
      let skippedPositions = 0;
      if (!chunk) {
        chunk = await nextChunk(r, after);
        if (!chunk.length) return;
        // A candidate stage that is not a stage of its job (or a job gone): counted as skipped, once.
        skippedPositions = chunk.filter((c) => !c.s).length;
        cursor = null;
      }
      const last = chunk[chunk.length - 1]!.p;
      const listed = chunk.filter((c) => c.s);
      const query = {
        ...baseQuery(r),
        job_ids: [...new Set(listed.map((c) => c.j))].join(","),
        current_stage_ids: [...new Set(listed.map((c) => c.s!))].join(","),
      };
      for (;;) {
        const page = listed.length
          ? await deps.reader.page<Application>(r.integrationId, "/ats/applications", cursor ? { ...query, cursor } : query)
          : { results: [], next: null };
        const next: ApplicationsCursor = page.next ? { after: last, chunk, cursor: page.next } : { after: last };
        yield { results: page.results, resume: JSON.stringify(next), chunk, skippedPositions };
        skippedPositions = 0;
        if (!page.next) break;
        cursor = page.next;
      }
      after = last;
      chunk = null;
    }
  }

  /**
   * An incremental run's applications: only those changed since `updated_after`, in one listing
   * across all jobs (no walk over every position), each page with the linked positions of the jobs
   * it names. Resume point: the next page's cursor.
   */
  async function* changedApplicationPages(
    r: SyncRunRow,
  ): AsyncGenerator<ReadPage<Application> & { positions: Map<string, LinkedPosition> }> {
    const query = baseQuery(r);
    let cursor = parseChangedCursor(r.pageCursor);
    for (;;) {
      const page = await deps.reader.page<Application>(r.integrationId, "/ats/applications", cursor ? { ...query, cursor } : query);
      const jobIds = [...new Set(page.results.map((a) => a.job_id).filter((j): j is string => !!j))];
      const positions = await deps.store.positionsOfJobs(deps.db, r.orgId, r.integrationId, jobIds);
      yield {
        results: page.results,
        resume: page.next ? JSON.stringify({ changed: page.next }) : null,
        positions: new Map(positions.map((p) => [p.upstreamJobIdId, p])),
      };
      if (!page.next) return;
      cursor = page.next;
    }
  }

  /** Writes a page of applications (already matched to positions) with its counts and resume point. */
  async function writeApplications(r: SyncRunRow, resume: string | null, apps: PositionedMappedApplication[], skipped: number) {
    await writePage(r, resume, async (tx) => {
      const c = apps.length ? await deps.store.upsertCandidates(tx, r.orgId, apps) : { created: 0, updated: 0, skipped: 0 };
      return { created: c.created, updated: c.updated, skipped: c.skipped + skipped };
    });
  }

  /**
   * Applications → candidates: every page is written with one set-based upsert (all its positions
   * at once) in one transaction together with the resume point, so a resumed run continues exactly
   * after the last page written. A full run lists each chunk of positions' candidate stages; an
   * incremental one reads only the changed applications and keeps those now in their position's
   * candidate stage (matched by the stage's id, then name).
   */
  async function syncApplications(r: SyncRunRow): Promise<void> {
    if (r.type === "DELTA" && r.updatedAfter) {
      for await (const page of readAhead(changedApplicationPages(r))) {
        const apps: PositionedMappedApplication[] = [];
        let skipped = 0;
        for (const app of page.results) {
          const position = app.job_id ? page.positions.get(app.job_id) : undefined;
          if (!position || !app.current_stage || app.remote_deleted_at) continue;
          if (!matchStage([app.current_stage as JobStage], position.candidateStage)) continue;
          const mapped = mapApplication(app);
          if (mapped) apps.push({ ...mapped, positionId: position.id, language: position.acceptedLanguages[0] ?? "en" });
          else skipped++; // no email address
        }
        await writeApplications(r, page.resume, apps, skipped);
      }
      return;
    }
    for await (const page of readAhead(applicationPages(r))) {
      const byJob = new Map(page.chunk.map((c) => [c.j, c]));
      const apps: PositionedMappedApplication[] = [];
      let skipped = page.skippedPositions;
      for (const app of page.results) {
        const entry = app.job_id ? byJob.get(app.job_id) : undefined;
        if (!entry?.s || app.current_stage_id !== entry.s || app.remote_deleted_at) continue;
        const mapped = mapApplication(app);
        if (mapped) apps.push({ ...mapped, positionId: entry.p, language: entry.l });
        else skipped++; // no email address
      }
      await writeApplications(r, page.resume, apps, skipped);
    }
  }

  return { start, run };
}
export type SyncEngine = ReturnType<typeof createSyncEngine>;

/** An applications resume point; one of an older shape starts the run over (its writes are idempotent). */
function parseApplicationsCursor(raw: string | null): ApplicationsCursor | null {
  if (!raw) return null;
  try {
    const parsed = JSON.parse(raw) as Partial<ApplicationsCursor>;
    return typeof parsed.after === "string" ? (parsed as ApplicationsCursor) : null;
  } catch {
    return null;
  }
}

/** An incremental applications run's resume point: the cursor of the next page of changes. */
function parseChangedCursor(raw: string | null): string | null {
  if (!raw) return null;
  try {
    const parsed = JSON.parse(raw) as { changed?: unknown };
    return typeof parsed.changed === "string" ? parsed.changed : null;
  } catch {
    return null;
  }
}
