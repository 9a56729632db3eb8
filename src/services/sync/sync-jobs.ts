import { AsyncLocalStorage } from "node:async_hooks";
import { type AtsReader, createAtsReader, isRetryableUpstreamError } from "./ats-reader.js";
import { resultsPageUrl } from "./assessments/results-url.js";
import { writeOrderResult } from "./assessments/order-result.js";
import { startAssessmentWorkers } from "./assessments/package-jobs.js";
import { NO_EVENTS_OUT } from "../../shared/no-events-out.js";
import type { AssessmentRecruiting } from "../../shared/ports/assessment-orders.js";
import { createUpstreamFailureLog, type UpstreamFailureLog } from "./activity/upstream-failures.js";
import { QUEUES, type JobQueue, type QueueName } from "../../shared/jobs/queue.js";
import { createSyncEngine, type SyncEngine, type SyncJobData } from "./sync-engine.js";
import { createWriteBack, type WriteBack } from "./write-back.js";
import { retryWriteBack, type WriteBackRef } from "./write-back-retry.js";
import type { WriteBackRow } from "./sync.tables.js";
import { createHealthMonitor, type HealthMonitor, type OnHealthChanged } from "./health/health-monitor.js";
import { addQueueDepthSource, addSyncLagSource, jobFailures } from "../../shared/http/metrics.js";
import type { Db, Queryable, Tx } from "../../shared/db/database.js";
import type { IntegrationLookup } from "../../shared/ports/integrations.js";
import type { RecruitingStore, WriteBackSource } from "../../shared/ports/recruiting-sync.js";
import type { Logger } from "pino";
import type { SyncConfig } from "./config.js";
import type { Database } from "../../shared/db/database.js";
import type { UpstreamClient } from "../../shared/upstream/upstream-client.js";
import { checkpointLags } from "./sync-runs.repository.js";
import { processWebhookEvents } from "./webhooks/webhook-worker.js";
import { healthChanged, type SyncEvents } from "./sync-events.js";
import { failDeadLetteredEvents } from "./webhooks/webhook-events.repository.js";
import { planWeeklySyncs, type WeeklyJob } from "./weekly-spread.js";
import type { SyncModel } from "./sync.tables.js";
import type { WebhookWorkContext } from "./webhooks/webhook-handlers.js";

/** The sync module's durable work: the queue, the sync engine, write-back, and (optionally) their workers. */
export type SyncWork = {
  queue: JobQueue;
  engine: SyncEngine;
  writeBack: WriteBack;
  store: RecruitingStore<Queryable, Db>;
  health: HealthMonitor;
  /** An operator's retry of a failed write-back (write-back-retry.ts). */
  retryWriteBack: (ref: WriteBackRef) => Promise<WriteBackRow>;
  /** Failed upstream calls, for the activity trail (the proxy's own failures are told here too). */
  failures: UpstreamFailureLog;
  /** Stops the metrics and writes what the failure log still holds. */
  stop: () => Promise<void>;
  /** The upstream as the sync and write-back call it (the assessment channel publishes packages through it). */
  reader: AtsReader;
};

/** What the sync module's durable work is built from: the hosting proxy's parts and the recruiting API's write-back source. */
export type SyncJobsDeps = {
  config: SyncConfig;
  database: Database;
  logger: Logger;
  upstream: UpstreamClient;
  integrations: IntegrationLookup;
  source: WriteBackSource<Queryable>;
  /** Positions and candidates as the sync engine writes them. */
  store: RecruitingStore<Queryable, Db>;
  queue: JobQueue;
  /** Run the job workers in this process. */
  workers: boolean;
  /** Told of each change of an integration's health state, in the transaction that records it (health/health-monitor.ts). */
  onHealthChanged?: OnHealthChanged | undefined;
  /** Where the module records its outbound events (sync runs ended, write-backs settled, health changed). */
  events?: SyncEvents | undefined;
  /** The recruiting data the assessment channel reads and writes (assessments/): packages, orders into interviews. */
  assessments?: AssessmentRecruiting<Tx, Queryable> | undefined;
};

/** Whether a job's attempt is its last (pg-boss counts retries from 0). */
const isLast = (job: { retryCount: number; retryLimit: number }) => job.retryCount >= job.retryLimit;

/** Webhook-event jobs a worker takes at once. */
const WEBHOOK_BATCH = 200;

/** Longest wait a `Retry-After` may ask for before the queue's own backoff applies instead. */
const MAX_RETRY_AFTER_MS = 15 * 60_000;

/**
 * When the upstream said when to come back (429 or 503 with `Retry-After`), the job is queued again
 * for then instead of failing into the queue's exponential backoff, which knows nothing of it.
 */
async function honouringRetryAfter(
  queue: JobQueue,
  name: QueueName,
  job: { data: object; priority: number; groupId?: string | null },
  singletonKey: string | undefined,
  work: () => Promise<void>,
) {
  try {
    await work();
  } catch (err) {
    jobFailures.inc({ queue: name });
    if (!isRetryableUpstreamError(err) || err.retryAfterMs === undefined || err.retryAfterMs > MAX_RETRY_AFTER_MS) throw err;
    const seconds = Math.max(1, Math.ceil(err.retryAfterMs / 1000));
    // Again with its priority and under its organisation.
    const again = { priority: job.priority, ...(job.groupId ? { orgId: job.groupId } : {}), startAfter: seconds };
    await queue.send(name, job.data, { ...(singletonKey ? { singletonKey } : {}), ...again });
  }
}

/**
 * Which job a failed upstream call belongs to: the sync engine's or a write-back's (which one). The
 * job wrappers set it around each job, so the ATS reader, shared by both, needs no parameter.
 */
const callContext = new AsyncLocalStorage<{ source: "sync" | "write-back"; writeBackId?: string }>();

/**
 * The health monitor's listener: the outbound `integration.health_changed`, recorded in the
 * transaction that records the change, then `also`. (The dispatcher picks it up on its next look:
 * the change commits after this returns.)
 */
function withHealthEvent(events: SyncEvents | undefined, also: OnHealthChanged | undefined): OnHealthChanged | undefined {
  if (!events) return also;
  return async (change, tx) => {
    await events.record(tx, [healthChanged(change)]);
    await also?.(change, tx);
  };
}

export async function startSyncJobs(opts: SyncJobsDeps): Promise<SyncWork> {
  const { config, database, logger, queue } = opts;
  const failures = createUpstreamFailureLog({ db: database.db, integrations: opts.integrations, logger });
  const reader = createAtsReader(opts.upstream, logger, (f) => failures.record({ ...f, source: "sync", ...callContext.getStore() }));
  const { store } = opts;
  const engine = createSyncEngine({
    db: database.db,
    queue,
    reader,
    store,
    integrations: opts.integrations,
    logger,
    defaultCandidateStage: config.SYNC_DEFAULT_CANDIDATE_STAGE || null,
    checkpointMarginSeconds: config.SYNC_CHECKPOINT_MARGIN_SECONDS,
    pageSize: config.SYNC_PAGE_SIZE,
    ...(opts.events ? { events: opts.events } : {}),
  });
  const health = createHealthMonitor({
    db: database.db,
    integrations: opts.integrations,
    logger,
    onHealthChanged: withHealthEvent(opts.events, opts.onHealthChanged),
  });
  const writeBack = createWriteBack({
    db: database.db,
    queue,
    reader,
    integrations: opts.integrations,
    source: opts.source,
    logger,
    // A write-back done or failed for good may change its integration's health.
    onSettled: (integrationId) => health.refreshQuietly(integrationId),
    ...(opts.events ? { events: opts.events } : {}),
    // A candidate from an assessment order gets its result on the order (assessments/order-result.ts).
    orderResult: (wb, result) =>
      writeOrderResult({ db: database.db, reader, events: opts.events ?? NO_EVENTS_OUT, resultsUrl: resultsPageUrl(config) }, wb, result),
  });
  // Scrape-time metrics: queue depth from pg-boss, sync lag from the checkpoints.
  const removeSources = [
    addQueueDepthSource(async () =>
      (await queue.boss.getQueues(Object.values(QUEUES))).flatMap((q) => [
        { queue: q.name, state: "ready", count: q.readyCount },
        { queue: q.name, state: "deferred", count: q.deferredCount },
        { queue: q.name, state: "active", count: q.activeCount },
      ]),
    ),
    addSyncLagSource(() => checkpointLags(database.query)),
  ];
  const stop = async () => {
    for (const remove of removeSources) remove();
    await failures.flush();
  };
  const retry = (ref: WriteBackRef) => retryWriteBack({ db: database.db, queue, source: opts.source }, ref);
  const work: SyncWork = { queue, engine, writeBack, store, health, failures, retryWriteBack: retry, stop, reader };
  if (opts.workers) await startWorkers(opts, work);
  return work;
}

/**
 * The webhook events' workers. Events go in batches (the data-changed burst of an import becomes one
 * sync trigger per integration); the jobs whose events the batch worker could not settle (the
 * batch failed on its last attempt, or its process died) come back through the dead letter queue
 * and their events are marked failed, listed and re-drivable, never left queued.
 */
async function startWebhookWorkers(queue: JobQueue, ctx: WebhookWorkContext, perOrganisation: number): Promise<void> {
  await queue.workBatch<{ eventId: string }>(
    QUEUES.webhookEvents,
    async (jobs) => {
      const results = await processWebhookEvents(ctx, jobs).catch((err: unknown) => {
        jobFailures.inc({ queue: QUEUES.webhookEvents }, jobs.length);
        throw err;
      });
      const failures = results.filter((r) => r.status === "failed").length;
      if (failures) jobFailures.inc({ queue: QUEUES.webhookEvents }, failures);
      return results;
    },
    { concurrency: 2, batchSize: WEBHOOK_BATCH, perOrganisation },
  );
  await queue.workBatch<{ eventId: string }>(
    QUEUES.webhookEventsFailed,
    async (jobs) => {
      const ids = jobs.map((j) => j.data.eventId);
      const marked = await failDeadLetteredEvents(ctx.db, ids, "the event's job failed for good");
      if (marked) ctx.logger.error({ events: marked }, "webhook events failed for good (dead-lettered)");
      return jobs.map((j) => ({ id: j.id, status: "completed" as const }));
    },
    { concurrency: 1, batchSize: 100 },
  );
}

/** The assessment channel's workers (assessments/package-jobs.ts); answers what a sync job calls when it ends. */
function startAssessments(opts: SyncJobsDeps, reader: AtsReader, recruiting: AssessmentRecruiting<Tx, Queryable>) {
  const { database, logger, queue, integrations } = opts;
  const intake = { db: database.db, integrations, recruiting, events: opts.events ?? NO_EVENTS_OUT, logger };
  return startAssessmentWorkers({ db: database.db, reader, integrations, recruiting, queue, intake });
}

/** The job workers of this process: webhook events in batches, syncs, write-backs, the weekly full sync. */
async function startWorkers(opts: SyncJobsDeps, work: SyncWork): Promise<void> {
  const { config, database, logger, queue } = opts;
  const { engine, writeBack, store, health } = work;
  const ctx = { db: database.db, integrations: opts.integrations, engine, writeBack, store, logger, health };
  await startWebhookWorkers(queue, ctx, config.WEBHOOK_ORG_CONCURRENCY);
  const afterSync = opts.assessments ? await startAssessments(opts, work.reader, opts.assessments) : null;
  await queue.work<SyncJobData>(
    QUEUES.sync,
    async (job) => {
      try {
        await callContext.run({ source: "sync" }, () =>
          honouringRetryAfter(queue, QUEUES.sync, job, `${job.data.integrationId}:${job.data.model}`, () =>
            engine.run(job.data, { last: isLast(job) }),
          ),
        );
      } finally {
        // Its runs ended (or one failed): the integration's health may have changed.
        await health.refreshQuietly(job.data.integrationId);
        // An integration taking assessment orders: packages on first sync, missed orders picked up.
        await afterSync?.(job.data.integrationId);
      }
    },
    { concurrency: 2, perOrganisation: config.SYNC_ORG_CONCURRENCY },
  );
  await queue.work<{ id: string }>(
    QUEUES.writeBack,
    (job) =>
      callContext.run({ source: "write-back", writeBackId: job.data.id }, () =>
        honouringRetryAfter(queue, QUEUES.writeBack, job, undefined, () => writeBack.run(job.data.id, { last: isLast(job) })),
      ),
    { concurrency: 4, perOrganisation: config.WRITE_BACK_ORG_CONCURRENCY },
  );
  await startWeeklySync(opts, engine);
}

/**
 * The safety net for lost webhooks: a full sync of every ATS integration that is not paused, once a
 * week, spread over the week (weekly-spread.ts). The cron's job plans one job per integration for
 * its own moment; each of those starts that integration's full sync when it comes due. The plan is
 * in the queue, so a restart resumes it where it stopped.
 */
async function startWeeklySync(opts: SyncJobsDeps, engine: SyncEngine): Promise<void> {
  const { config, logger, queue } = opts;
  await queue.work<Partial<WeeklyJob>>(QUEUES.weeklySync, async (job) => {
    const one = job.data;
    if (one?.integrationId && one.orgId) {
      const models: SyncModel[] = ["jobs", "applications"];
      await engine.start({ integrationId: one.integrationId, orgId: one.orgId, models, type: "FULL", trigger: "weekly" });
      return;
    }
    const rows = await opts.integrations.listSyncable();
    // From the cron job's own creation: a retry of it plans the same moments.
    const planned = await planWeeklySyncs(queue, rows, config.SYNC_WEEKLY_SPREAD_SECONDS, job.id, job.createdOn);
    logger.info({ integrations: rows.length, planned }, "weekly full sync planned");
  });
  await queue.boss.schedule(QUEUES.weeklySync, config.SYNC_WEEKLY_CRON, null, { tz: "UTC" });
}
