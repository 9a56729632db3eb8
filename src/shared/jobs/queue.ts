import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import type { JobResult, JobWithMetadata, PgBoss, QueueOptions } from "pg-boss";
import type { Logger } from "pino";
import type { Database, Queryable } from "../db/database.js";
import { jobQueueSchema } from "../db/pg-schemas.js";

/**
 * The durable job queue (pg-boss) on the same storage as everything else: PGlite by default, the
 * real Postgres in production, where several instances share it and pg-boss hands each job to one
 * worker. Queue names and their retry/coalescing policies are declared here, once.
 */
export const QUEUES = {
  /**
   * The jobs of webhook events whose work failed for good in a way the worker could not record
   * itself (the batch failed as a whole on its last attempt, or its worker died): pg-boss moves
   * them here (the queue's dead letter), and their events are marked failed, never left queued.
   */
  webhookEventsFailed: "webhook-events-failed",
  /** One job per stored webhook event; retried with backoff; dead letters to webhookEventsFailed. */
  webhookEvents: "webhook-events",
  /**
   * One job per (integration, model) sync. `stately`: at most one queued and one active per key,
   * so triggers that arrive while a sync runs coalesce into a single follow-up run.
   */
  sync: "sync",
  /** Interview results written back to the ATS. */
  writeBack: "write-back",
  /** The weekly full sync of every active integration, the safety net for lost webhooks. */
  weeklySync: "weekly-full-sync",
  /**
   * An organisation's interview packages published to its integrations that take orders, a few
   * seconds after its templates changed. `short`: at most one queued per organisation (its key), so
   * changes meanwhile coalesce; one arriving while it runs queues the next.
   */
  assessmentPackages: "assessment-packages",
  /** The retention job (services/retention): candidates due erased, operational data purged; hourly by cron. */
  retention: "data-retention",
  /**
   * Outbound webhooks' temporary endpoints past their idle time deleted (services/webhooks-out):
   * every minute by cron, and a delayed job at each endpoint's expiry.
   */
  webhookEndpointSweep: "webhook-endpoint-sweep",
} as const;
export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

/**
 * `notify`: creating a job wakes an idle worker at once (Postgres NOTIFY, in-process on PGlite)
 * instead of at its next poll; polling stays as the fallback and finds retries coming due.
 */
const QUEUE_OPTIONS: Record<QueueName, QueueOptions & { policy?: string; notify?: boolean; deadLetter?: string }> = {
  // Created before the queue that dead-letters into it (a foreign key).
  "webhook-events-failed": { retryLimit: 10, retryDelay: 5, retryBackoff: true, retryDelayMax: 600, expireInSeconds: 60, notify: true },
  "webhook-events": {
    retryLimit: 8,
    retryDelay: 2,
    retryBackoff: true,
    retryDelayMax: 600,
    expireInSeconds: 300,
    notify: true,
    deadLetter: "webhook-events-failed",
  },
  sync: { policy: "stately", retryLimit: 10, retryDelay: 5, retryBackoff: true, retryDelayMax: 900, expireInSeconds: 3600, notify: true },
  "write-back": { retryLimit: 10, retryDelay: 5, retryBackoff: true, retryDelayMax: 1800, expireInSeconds: 300, notify: true },
  "weekly-full-sync": { retryLimit: 2, expireInSeconds: 600 },
  "assessment-packages": {
    policy: "short",
    retryLimit: 8,
    retryDelay: 5,
    retryBackoff: true,
    retryDelayMax: 600,
    expireInSeconds: 300,
    notify: true,
  },
  // `singleton`: one run at a time across the instances; a cron tick while one runs adds none.
  "data-retention": { policy: "singleton", retryLimit: 1, expireInSeconds: 3600 },
  // Idempotent (a delete of what expired): runs at once or twice in a row cost nothing more.
  "webhook-endpoint-sweep": { retryLimit: 2, retryDelay: 5, expireInSeconds: 120 },
};

/**
 * How soon a job runs among the ready ones of its queue (pg-boss fetches by priority, then age):
 * what a person waits for (a connect's first sync, a force-sync or sync-all, a write-back, a
 * console retry) before the upstream's webhooks, before scheduled background work (the weekly
 * full sync).
 */
export const PRIORITY = { interactive: 20, webhook: 10, background: 0 } as const;

/** What `send` files a job under: its priority and its organisation (the group its fair share counts). */
export type SendOptions = {
  singletonKey?: string;
  startAfter?: number | Date;
  /** A stable id: a second send with it is dropped (pg-boss inserts on conflict do nothing). */
  id?: string;
  priority?: number;
  /** The organisation the job works for: the queue's workers give it at most `perOrganisation` at once. */
  orgId?: string;
  tx?: Queryable;
};

export type JobQueue = {
  boss: PgBoss;
  /** Whether priorities and per-organisation shares apply (false: first come, first served, as before issue 43). */
  fair: boolean;
  send(name: QueueName, data: object, opts?: SendOptions): Promise<string | null>;
  /**
   * The text of ONE statement that runs a caller's own `with` items (`ctes`, an insert say) and then
   * queues the jobs that `jobs` makes of them: an SQL expression over those items answering a JSON
   * array of `{id, data}`. The jobs go in through pg-boss's own insert (the queue's policies,
   * retries and NOTIFY), and the statement answers the ids of the jobs queued. Caller's rows and
   * jobs are then atomic without a transaction, and cost one round trip where a transaction costs
   * four (begin, insert, insert jobs, commit). The caller's parameters are its own (`$1`...).
   */
  insertJobsWith(name: QueueName, ctes: string, jobs: string): Promise<string>;
  /** Runs `handler` for each job; it sees `retryCount`/`retryLimit` to know a last attempt. */
  work<T extends object>(
    name: QueueName,
    handler: (job: JobWithMetadata<T>) => Promise<void>,
    opts?: { concurrency?: number; perOrganisation?: number },
  ): Promise<void>;
  /**
   * Runs `handler` on up to `batchSize` jobs at a time and settles each job as it answers (a job it
   * leaves out fails and is retried). While batches come back full the worker fetches again at once.
   */
  workBatch<T extends object>(
    name: QueueName,
    handler: (jobs: JobWithMetadata<T>[]) => Promise<JobResult[]>,
    opts: { concurrency?: number; batchSize: number; perOrganisation?: number },
  ): Promise<void>;
  stop(): Promise<void>;
};

export type JobQueueOptions = {
  /** Run the cron schedules (the weekly full sync) from this instance. */
  schedule?: boolean;
  pollingIntervalSeconds?: number;
  /**
   * JOB_HEARTBEAT_SECONDS: a running job's worker touches it every half of this; a job untouched
   * for this long (its process was killed) is retried by another instance. Without heartbeats that
   * would wait for the queue's `expireInSeconds` (an hour for a sync), which stays the bound on a
   * worker that is alive but stuck.
   */
  heartbeatSeconds?: number;
  /**
   * JOB_RETENTION_DAYS as seconds: how long every queue keeps its completed and failed jobs before
   * pg-boss's own maintenance deletes them (its `deleteAfterSeconds`; pg-boss's default, 7 days).
   */
  deleteAfterSeconds?: number;
  /**
   * JOBS_FAIR: priorities and per-organisation shares (pg-boss's `priority` and `groupConcurrency`,
   * the group being the organisation). Off: every job of a queue in the order it was queued,
   * whoever it is for (the comparison the fairness test and the scale bench run).
   */
  fair?: boolean;
};

/**
 * pg-boss's per-group limit, counted across every instance (from the active jobs in the database):
 * a job of an organisation at its share stays queued while other organisations' jobs are fetched.
 */
const groupLimit = (fair: boolean, perOrganisation: number | undefined) =>
  fair && perOrganisation ? { groupConcurrency: perOrganisation } : {};

/** The job options of `send` that pg-boss takes (priority and group only when the queue is fair). */
function jobOptions(fair: boolean, o: SendOptions) {
  return {
    ...(o.singletonKey ? { singletonKey: o.singletonKey } : {}),
    ...(o.startAfter ? { startAfter: o.startAfter } : {}),
    ...(o.id ? { id: o.id } : {}),
    ...(fair && o.priority ? { priority: o.priority } : {}),
    ...(fair && o.orgId ? { group: { id: o.orgId } } : {}),
  };
}

/** Without fairness, the jobs an `insertJobsWith` expression makes lose their priority and group. */
const unfairJobs = (jobs: string) =>
  `select coalesce(json_agg(j::jsonb - 'priority' - 'groupId'), '[]'::json) from json_array_elements((${jobs})) j`;

const DEFAULT_HEARTBEAT_SECONDS = 60;

/** Creates the queues of QUEUE_OPTIONS, or brings their options in step with the code. */
async function declareQueues(boss: PgBoss, heartbeatSeconds: number, deleteAfterSeconds?: number): Promise<void> {
  for (const [name, { policy, ...declared }] of Object.entries(QUEUE_OPTIONS)) {
    const options = deleteAfterSeconds ? { ...declared, deleteAfterSeconds } : declared;
    // createQueue leaves an existing queue as it is; updateQueue keeps its options in step with the
    // code and the configuration (a policy cannot change once the queue exists).
    await boss.createQueue(name, { ...options, heartbeatSeconds, ...(policy ? { policy } : {}) } as never);
    await boss.updateQueue(name, { ...options, heartbeatSeconds });
    // pg-boss looks a queue's policy up in a cache it fills at start and on a miss. A miss inside
    // a PGlite transaction would wait on the single connection the transaction holds (deadlock),
    // so fill the cache now, outside any transaction: completing an id that does not exist does it.
    await boss.complete(name, randomUUID()).catch(() => {});
  }
}

/** JobQueue.insertJobsWith: pg-boss's own insert for the queue `name`, joined to the caller's `ctes`. */
async function insertJobsStatement(boss: PgBoss, name: string, ctes: string, jobs: string): Promise<string> {
  // pg-boss's statement, as insert() builds it for this queue now: its one parameter, $1, is
  // the jobs' JSON array. Taken by an adapter that runs nothing (the queue's settings are in
  // pg-boss's cache, filled at start), so it follows pg-boss's upgrades.
  let text = "";
  const capture = {
    executeSql: async (sqlText: string) => {
      text = sqlText;
      return { rows: [] };
    },
  };
  await boss.insert(name, [{ data: {} }], { db: capture, returnId: true });
  const params = text.match(/\$\d+/g) ?? [];
  if (params.length !== 1 || params[0] !== "$1")
    throw new Error(`pg-boss's insert statement for ${name} does not take its jobs as its one parameter $1`);
  const statement = text.trim().replace("$1", () => `(${jobs})`);
  // With NOTIFY on, pg-boss's statement is itself a WITH (the insert, then pg_notify): the
  // caller's items join its list, since a data-modifying WITH cannot nest.
  const own = /^with\s/i.exec(statement);
  return own ? `with ${ctes}, ${statement.slice(own[0].length)}` : `with ${ctes}, queued_jobs as (${statement}) select id from queued_jobs`;
}

export async function openJobQueue(database: Database, logger: Logger, opts: JobQueueOptions = {}): Promise<JobQueue> {
  // pg-boss (with its cron and time-zone libraries) is loaded by the processes that open a queue, not
  // by every importer of QUEUES.
  const { PgBoss, fromDrizzle, fromPglite } = await import("pg-boss");
  const schema = database.kind === "postgres" ? jobQueueSchema(database.schema) : "pgboss";
  const heartbeatSeconds = opts.heartbeatSeconds ?? DEFAULT_HEARTBEAT_SECONDS;
  // Stale heartbeats and expired jobs are found by the supervisor's monitor pass, so it runs at
  // least twice per heartbeat period (pg-boss's default, 60 s, is the ceiling).
  const monitorSeconds = Math.max(1, Math.min(60, Math.floor(heartbeatSeconds / 2)));
  const common = {
    schema,
    useListenNotify: true,
    schedule: opts.schedule ?? false,
    supervise: true,
    superviseIntervalSeconds: monitorSeconds,
    monitorIntervalSeconds: monitorSeconds,
    // The workers' burst mode reads the ready count from this cache: refresh it as often as the monitor counts.
    queueCacheIntervalSeconds: monitorSeconds,
  };
  const boss =
    database.kind === "pglite" && database.pglite
      ? new PgBoss({ ...common, db: fromPglite(database.pglite), backend: "pglite" } as never)
      : new PgBoss({
          ...common,
          ...(database.url ? { connectionString: database.url } : {}),
          ...(database.bounds ? { connectionTimeoutMillis: database.bounds.connectTimeoutMs } : {}),
          max: 4,
        });
  boss.on("error", (err) => logger.error({ err }, "job queue error"));
  await boss.start();
  await declareQueues(boss, heartbeatSeconds, opts.deleteAfterSeconds);
  const polling = opts.pollingIntervalSeconds ?? 1;
  // Notified queues still poll at the same pace: a retry or a delayed job coming due sends no NOTIFY.
  const pollingOptions = { pollingIntervalSeconds: polling, notifyPollingIntervalSeconds: polling };
  const inTx = (tx: Queryable | undefined) => (tx ? { db: fromDrizzle(tx as never, sql as never) } : {});
  const fair = opts.fair ?? true;
  return {
    boss,
    fair,
    // Inside the caller's transaction: the job exists exactly when the caller's write commits.
    send: (name, data, o = {}) => boss.send(name, data, { ...jobOptions(fair, o), ...inTx(o.tx) }),
    insertJobsWith: (name, ctes, jobs) => insertJobsStatement(boss, name, ctes, fair ? jobs : unfairJobs(jobs)),
    work: async (name, handler, o = {}) => {
      // With a backlog (more than one job ready, as the monitor last counted) each worker fetches
      // again at once instead of waiting out the poll.
      const options = {
        ...pollingOptions,
        localConcurrency: o.concurrency ?? 1,
        batchSize: 1,
        includeMetadata: true,
        burstWhenReadyExceeds: 1,
        ...groupLimit(fair, o.perOrganisation),
      };
      await boss.work<object>(name, options, async (jobs) => {
        for (const job of jobs) await handler(job as JobWithMetadata<never>);
      });
    },
    workBatch: async (name, handler, o) => {
      await boss.work<object>(
        name,
        {
          ...pollingOptions,
          localConcurrency: o.concurrency ?? 1,
          batchSize: o.batchSize,
          burstWhenBatchFull: true,
          includeMetadata: true,
          perJobResults: true,
          ...groupLimit(fair, o.perOrganisation),
        },
        (jobs) => handler(jobs as JobWithMetadata<never>[]),
      );
    },
    stop: async () => {
      await boss.stop({ graceful: true, timeout: 10_000 });
    },
  };
}
