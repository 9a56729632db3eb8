import type { FastifyPluginAsync } from "fastify";
import type { Logger } from "pino";
import type { Database, Tx } from "../../shared/db/database.js";
import { type JobQueue, QUEUES } from "../../shared/jobs/queue.js";
import type { AuditLog } from "../../shared/ports/audit-log.js";
import type { RetentionConfig } from "./config.js";
import { type EraseCandidates, runRetention } from "./retention-run.js";
import { retentionRoutes } from "./retention.routes.js";

export type RetentionDeps = {
  config: RetentionConfig;
  database: Database;
  logger: Logger;
  /**
   * The erasure path of the API's DELETE of a candidate, handed in by src/runtime/wiring.ts
   * (candidateErasure): due candidates are erased, not just deleted.
   */
  erase: EraseCandidates;
  /** The audit log: policy changes. */
  audit?: AuditLog<Tx>;
  /** Other modules' purges each run drives (the audit log's), by kind. */
  extraPurges?: Record<string, (now: Date) => Promise<number>>;
};

/**
 * Data retention (docs/privacy.md): the policy's routes the recruiting API serves, and the
 * scheduled job that erases the candidates due and purges the operational data past its retention.
 */
export function createRetention(deps: RetentionDeps) {
  const log = deps.logger.child({ component: "retention" });
  const orgRoutes: FastifyPluginAsync = async (app) => {
    await app.register(retentionRoutes, { ctx: { db: deps.database.requestDb, ...(deps.audit ? { audit: deps.audit } : {}) } });
  };
  const run = (now?: Date) => runRetention({ ...deps, logger: log }, now);
  return {
    routes: { routes: [] as FastifyPluginAsync[], orgRoutes: [orgRoutes] },
    run,
    /**
     * The job's worker on this process's queue, and its schedule (pg-boss runs a schedule once per
     * instance set: only the instances started with WORKERS keep the cron).
     */
    async startJob(queue: JobQueue): Promise<void> {
      await queue.work(QUEUES.retention, async () => {
        await run();
      });
      if (deps.config.WORKERS) await queue.boss.schedule(QUEUES.retention, deps.config.RETENTION_CRON, null, { tz: "UTC" });
    },
  };
}
export type Retention = ReturnType<typeof createRetention>;
