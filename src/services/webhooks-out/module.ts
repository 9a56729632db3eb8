import type { FastifyPluginAsync } from "fastify";
import type { Logger } from "pino";
import type { WebhooksOutConfig } from "./config.js";
import type { Database, Db, Queryable } from "../../shared/db/database.js";
import type { AuditLog } from "../../shared/ports/audit-log.js";
import type { EventsOut } from "../../shared/ports/events-out.js";
import { NO_AUDIT_LOG } from "../../shared/no-audit-log.js";
import type { WebhooksOutContext } from "./context.js";
import { Dispatcher } from "./dispatcher.js";
import { type JobQueue, QUEUES } from "../../shared/jobs/queue.js";
import { deleteExpiredEndpoints, orgsWithEndpoints } from "./endpoints.repository.js";
import { deliveryRoutes } from "./deliveries.routes.js";
import { endpointRoutes } from "./endpoints.routes.js";
import { eventTypeRoutes } from "./event-types.routes.js";
import { createOutbox } from "./outbox.js";
import { parseSchedule } from "./schedule.js";
import { createSender } from "./sender.js";
import { systemResolve, targetPolicyOf, type Resolve } from "./targets.js";

export type WebhooksOutDeps = {
  config: WebhooksOutConfig;
  database: Database;
  logger: Logger;
  /** Host name resolution (tests give a fake one to play DNS rebinding). */
  resolve?: Resolve;
  /** Run the dispatcher in this process (default: config WORKERS). */
  deliver?: boolean;
  /** How often the dispatcher looks without a wake-up, ms (default 1000). */
  pollMs?: number;
  /** Where endpoint and secret changes are recorded (src/runtime/wiring.ts); none without it. */
  audit?: AuditLog<Queryable, Db>;
};

/** Most endpoints one organisation may have (each event fans out to all of them). */
export const MAX_ENDPOINTS_PER_ORG = 50;
/** Temporary endpoints deleted per statement of a sweep. */
const SWEEP_BATCH = 500;
/** The sweep's schedule (the safety net of the delayed job each expiry queues). */
const SWEEP_CRON = "* * * * *";
/** How often the hint of which organisations have endpoints is read again (other instances' changes). */
const HINT_REFRESH_MS = 10_000;

/**
 * Outbound webhooks (docs/webhooks-out.md): the endpoints' routes the recruiting API serves, the
 * outbox port the emitting services record their events through, and the dispatcher that delivers
 * them. One per process (src/runtime/wiring.ts shares it between the services of a process).
 */
export function createWebhooksOut(deps: WebhooksOutDeps) {
  const policy = targetPolicyOf(deps.config);
  const log = deps.logger.child({ component: "webhooks-out" });
  // Organisations with an enabled endpoint, as last read (null: not yet): whom a commit wakes the dispatcher for.
  let hinted: Set<string> | null = null;
  const refreshHint = async () => {
    hinted = new Set(await orgsWithEndpoints(deps.database.db));
  };
  const deliver = deps.deliver ?? deps.config.WORKERS;
  const dispatcher = deliver
    ? new Dispatcher({
        database: deps.database,
        logger: log,
        sender: createSender({ policy, timeoutMs: deps.config.WEBHOOK_TIMEOUT_MS, resolve: deps.resolve }),
        schedule: parseSchedule(deps.config.WEBHOOK_RETRY_SCHEDULE),
        leaseSeconds: deps.config.WEBHOOK_LEASE_SECONDS,
        timeoutMs: deps.config.WEBHOOK_TIMEOUT_MS,
        disableAfterSeconds: deps.config.WEBHOOK_DISABLE_AFTER_SECONDS,
        retentionDays: deps.config.WEBHOOK_RETENTION_DAYS,
        ...(deps.pollMs ? { pollMs: deps.pollMs } : {}),
      })
    : null;
  const wake = () => dispatcher?.wake(true);
  // The job queue the sweep runs on (startSweep), to queue a look at each temporary endpoint's expiry.
  let sweepQueue: JobQueue | null = null;
  const ctx: WebhooksOutContext = {
    db: deps.database.db,
    database: deps.database,
    policy,
    resolve: deps.resolve ?? systemResolve,
    secretOverlapSeconds: deps.config.WEBHOOK_SECRET_OVERLAP_SECONDS,
    tempIdleSeconds: deps.config.WEBHOOK_TEMP_ENDPOINT_IDLE_MINUTES * 60,
    expiresAt: (at) => {
      void sweepQueue
        ?.send(QUEUES.webhookEndpointSweep, {}, { startAfter: new Date(at.getTime() + 1000) })
        .catch((err: unknown) => log.warn({ err }, "queueing the temporary endpoints' sweep failed (the cron's runs it)"));
    },
    maxEndpoints: MAX_ENDPOINTS_PER_ORG,
    endpointsChanged: (orgId) => {
      hinted?.add(orgId);
      void refreshHint().catch((err) => log.warn({ err }, "reading which organisations have webhook endpoints failed"));
    },
    wake,
    audit: deps.audit ?? NO_AUDIT_LOG,
  };
  const events: EventsOut<Queryable> = createOutbox({
    mayHaveEndpoints: (org) => hinted === null || hinted.has(org),
    wake: () => dispatcher?.wake(),
  });
  let hintTimer: NodeJS.Timeout | undefined;
  /** Deletes the temporary endpoints past their expiry; answers how many. */
  const sweep = async (): Promise<number> => {
    let total = 0;
    for (;;) {
      const gone = await deleteExpiredEndpoints(deps.database, SWEEP_BATCH);
      for (const { id, org } of gone) {
        log.info({ endpoint_id: id, org_id: org }, "temporary webhook endpoint expired (no keep-alive): deleted");
        ctx.endpointsChanged(org);
      }
      total += gone.length;
      if (gone.length < SWEEP_BATCH) return total;
    }
  };
  const orgRoutes: FastifyPluginAsync = async (app) => {
    await app.register(endpointRoutes, { ctx });
    await app.register(deliveryRoutes, { ctx });
  };

  return {
    events,
    /** For the recruiting API (its HostedRoutes). */
    routes: { routes: [eventTypeRoutes as FastifyPluginAsync], orgRoutes: [orgRoutes] },
    policy,
    sweep,
    /**
     * The sweep of expired temporary endpoints on `queue` (the recruiting API's, with WORKERS): its
     * worker, its cron (`schedule`: pg-boss runs it once per instance set), and a delayed job at
     * each expiry this process sets. Once per module.
     */
    async startSweep(queue: JobQueue, opts: { schedule: boolean }): Promise<void> {
      if (sweepQueue) return;
      sweepQueue = queue;
      await queue.work(QUEUES.webhookEndpointSweep, async () => {
        await sweep();
      });
      if (opts.schedule) await queue.boss.schedule(QUEUES.webhookEndpointSweep, SWEEP_CRON, null, { tz: "UTC" });
    },
    async start(): Promise<void> {
      await refreshHint().catch((err) => log.warn({ err }, "reading which organisations have webhook endpoints failed"));
      hintTimer = setInterval(() => void refreshHint().catch(() => {}), HINT_REFRESH_MS);
      hintTimer.unref();
      dispatcher?.start();
    },
    /** Stops delivering (running attempts finish and are recorded; waiting ones go to the retry queue). */
    async close(): Promise<void> {
      clearInterval(hintTimer);
      await dispatcher?.close();
    },
    /** The start banner's line: where endpoints may point. */
    banner(): string {
      return policy === "public"
        ? "HTTPS endpoints on public addresses only"
        : policy === "loopback"
          ? "loopback and http allowed (embedded default; WEBHOOK_TARGETS=public refuses them)"
          : "any address allowed (WEBHOOK_TARGETS=any)";
    },
  };
}
export type WebhooksOut = ReturnType<typeof createWebhooksOut>;
