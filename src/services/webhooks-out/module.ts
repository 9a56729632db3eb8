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
import { systemResolve, targetPolicyOf, type Resolve, type TargetPolicy } from "./targets.js";

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

/** The dispatcher that delivers the events, when this process delivers (`deps.deliver`, else WORKERS); null when not. */
function createDispatcher(deps: WebhooksOutDeps, policy: TargetPolicy, log: Logger): Dispatcher | null {
  const deliver = deps.deliver ?? deps.config.WORKERS;
  if (!deliver) return null;
  return new Dispatcher({
    database: deps.database,
    logger: log,
    sender: createSender({ policy, timeoutMs: deps.config.WEBHOOK_TIMEOUT_MS, resolve: deps.resolve }),
    schedule: parseSchedule(deps.config.WEBHOOK_RETRY_SCHEDULE),
    leaseSeconds: deps.config.WEBHOOK_LEASE_SECONDS,
    timeoutMs: deps.config.WEBHOOK_TIMEOUT_MS,
    disableAfterSeconds: deps.config.WEBHOOK_DISABLE_AFTER_SECONDS,
    retentionDays: deps.config.WEBHOOK_RETENTION_DAYS,
    ...(deps.pollMs ? { pollMs: deps.pollMs } : {}),
  });
}

/**
 * Organisations with an enabled endpoint, as last read (none read yet: any may have one): whom a
 * commit wakes the dispatcher for. Read again every HINT_REFRESH_MS once started (other instances' changes).
 */
class EndpointOrgsHint {
  private orgs: Set<string> | null = null;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
  ) {}

  mayHaveEndpoints(org: string): boolean {
    return this.orgs === null || this.orgs.has(org);
  }

  async refresh(): Promise<void> {
    this.orgs = new Set(await orgsWithEndpoints(this.db));
  }

  /** An endpoint of `org` was saved or removed: counted at once, and the set read again. */
  changed(org: string): void {
    this.orgs?.add(org);
    void this.refresh().catch((err) => this.log.warn({ err }, "reading which organisations have webhook endpoints failed"));
  }

  async start(): Promise<void> {
    await this.refresh().catch((err) => this.log.warn({ err }, "reading which organisations have webhook endpoints failed"));
    this.timer = setInterval(() => void this.refresh().catch(() => {}), HINT_REFRESH_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

/** Queues a look of the sweep just after `at` (a temporary endpoint's expiry) on `queue`; nothing without one. */
function queueSweepAt(queue: JobQueue | null, at: Date, log: Logger): void {
  void queue
    ?.send(QUEUES.webhookEndpointSweep, {}, { startAfter: new Date(at.getTime() + 1000) })
    .catch((err: unknown) => log.warn({ err }, "queueing the temporary endpoints' sweep failed (the cron's runs it)"));
}

/** Deletes the temporary endpoints past their expiry, a batch at a time, telling `changed` each one's organisation; answers how many. */
async function sweepExpiredEndpoints(database: Database, log: Logger, changed: (org: string) => void): Promise<number> {
  let total = 0;
  for (;;) {
    const gone = await deleteExpiredEndpoints(database, SWEEP_BATCH);
    for (const { id, org } of gone) {
      log.info({ endpoint_id: id, org_id: org }, "temporary webhook endpoint expired (no keep-alive): deleted");
      changed(org);
    }
    total += gone.length;
    if (gone.length < SWEEP_BATCH) return total;
  }
}

/** The start banner's line: where endpoints may point. */
function bannerOf(policy: TargetPolicy): string {
  return policy === "public"
    ? "HTTPS endpoints on public addresses only"
    : policy === "loopback"
      ? "loopback and http allowed (embedded default; WEBHOOK_TARGETS=public refuses them)"
      : "any address allowed (WEBHOOK_TARGETS=any)";
}

/**
 * Outbound webhooks (docs/webhooks-out.md): the endpoints' routes the recruiting API serves, the
 * outbox port the emitting services record their events through, and the dispatcher that delivers
 * them. One per process (src/runtime/wiring.ts shares it between the services of a process).
 */
export function createWebhooksOut(deps: WebhooksOutDeps) {
  const policy = targetPolicyOf(deps.config);
  const log = deps.logger.child({ component: "webhooks-out" });
  const hint = new EndpointOrgsHint(deps.database.db, log);
  const dispatcher = createDispatcher(deps, policy, log);
  // The job queue the sweep runs on (startSweep), to queue a look at each temporary endpoint's expiry.
  let sweepQueue: JobQueue | null = null;
  const ctx: WebhooksOutContext = {
    db: deps.database.db,
    database: deps.database,
    policy,
    resolve: deps.resolve ?? systemResolve,
    secretOverlapSeconds: deps.config.WEBHOOK_SECRET_OVERLAP_SECONDS,
    tempIdleSeconds: deps.config.WEBHOOK_TEMP_ENDPOINT_IDLE_MINUTES * 60,
    expiresAt: (at) => queueSweepAt(sweepQueue, at, log),
    maxEndpoints: MAX_ENDPOINTS_PER_ORG,
    endpointsChanged: (orgId) => hint.changed(orgId),
    wake: () => dispatcher?.wake(true),
    audit: deps.audit ?? NO_AUDIT_LOG,
  };
  const events: EventsOut<Queryable> = createOutbox({
    mayHaveEndpoints: (org) => hint.mayHaveEndpoints(org),
    wake: () => dispatcher?.wake(),
  });
  /** Deletes the temporary endpoints past their expiry; answers how many. */
  const sweep = (): Promise<number> => sweepExpiredEndpoints(deps.database, log, ctx.endpointsChanged);
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
      await hint.start();
      dispatcher?.start();
    },
    /** Stops delivering (running attempts finish and are recorded; waiting ones go to the retry queue). */
    async close(): Promise<void> {
      hint.stop();
      await dispatcher?.close();
    },
    /** The start banner's line: where endpoints may point. */
    banner(): string {
      return bannerOf(policy);
    },
  };
}
export type WebhooksOut = ReturnType<typeof createWebhooksOut>;
