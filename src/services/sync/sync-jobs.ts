import { createAtsReader, isRetryableUpstreamError } from "./ats-reader.js";
import { QUEUES, type JobQueue, type QueueName } from "../../shared/jobs/queue.js";
import { createSyncEngine, type SyncEngine, type SyncJobData } from "./sync-engine.js";
import { createWriteBack, type WriteBack } from "./write-back.js";
import { addQueueDepthSource, addSyncLagSource, jobFailures } from "../../shared/http/metrics.js";
import type { RecruitingStore } from "./ports.js";
import type { SyncModuleDeps } from "./sync-module.js";
import { checkpointLags } from "./sync-runs.repository.js";
import { processWebhookEvents } from "./webhooks/webhook-worker.js";

/** The sync module's durable work: the queue, the sync engine, write-back, and (optionally) their workers. */
export type SyncWork = { queue: JobQueue; engine: SyncEngine; writeBack: WriteBack; store: RecruitingStore; stopMetrics: () => void };

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
  data: object,
  singletonKey: string | undefined,
  work: () => Promise<void>,
) {
  try {
    await work();
  } catch (err) {
    jobFailures.inc({ queue: name });
    if (!isRetryableUpstreamError(err) || err.retryAfterMs === undefined || err.retryAfterMs > MAX_RETRY_AFTER_MS) throw err;
    const seconds = Math.max(1, Math.ceil(err.retryAfterMs / 1000));
    await queue.send(name, data, { ...(singletonKey ? { singletonKey } : {}), startAfter: seconds });
  }
}

export async function startSyncJobs(opts: SyncModuleDeps): Promise<SyncWork> {
  const { config, database, logger, queue } = opts;
  const reader = createAtsReader(opts.upstream, logger);
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
  });
  const writeBack = createWriteBack({ db: database.db, queue, reader, integrations: opts.integrations, source: opts.source, logger });
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
  const stopMetrics = () => {
    for (const remove of removeSources) remove();
  };
  if (opts.workers) {
    const ctx = { db: database.db, integrations: opts.integrations, engine, writeBack, store, logger };
    // Events in batches: the data-changed burst of an import becomes one sync trigger per integration.
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
      { concurrency: 2, batchSize: WEBHOOK_BATCH },
    );
    await queue.work<SyncJobData>(
      QUEUES.sync,
      (job) =>
        honouringRetryAfter(queue, QUEUES.sync, job.data, `${job.data.integrationId}:${job.data.model}`, () =>
          engine.run(job.data, { last: isLast(job) }),
        ),
      { concurrency: 2 },
    );
    await queue.work<{ id: string }>(
      QUEUES.writeBack,
      (job) => honouringRetryAfter(queue, QUEUES.writeBack, job.data, undefined, () => writeBack.run(job.data.id, { last: isLast(job) })),
      { concurrency: 4 },
    );
    await queue.work(QUEUES.weeklySync, async () => {
      // The safety net for lost webhooks: a full sync of every ATS integration that is not paused.
      const rows = await opts.integrations.listSyncable();
      for (const r of rows) {
        await engine.start({ integrationId: r.id, orgId: r.orgId, models: ["jobs", "applications"], type: "FULL", trigger: "weekly" });
      }
      logger.info({ integrations: rows.length }, "weekly full sync queued");
    });
    await queue.boss.schedule(QUEUES.weeklySync, config.SYNC_WEEKLY_CRON, null, { tz: "UTC" });
  }
  return { queue, engine, writeBack, store, stopMetrics };
}
