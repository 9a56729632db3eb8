import type { Logger } from "pino";
import type { Config } from "../../shared/config.js";
import type { Database } from "../../shared/db/database.js";
import type { App } from "../../shared/http/create-app.js";
import type { JobQueue } from "../../shared/jobs/queue.js";
import type { UpstreamClient } from "../../shared/upstream/upstream-client.js";
import type { IntegrationLookup, RecruitingStore, WriteBackSource } from "./ports.js";
import { startSyncJobs, type SyncWork } from "./sync-jobs.js";
import { syncRoutes } from "./sync.routes.js";
import { webhookRoutes } from "./webhooks/webhooks.routes.js";

/** What the sync module is built from: the hosting proxy's parts and the recruiting API's write-back source. */
export type SyncModuleDeps = {
  config: Config;
  database: Database;
  logger: Logger;
  upstream: UpstreamClient;
  integrations: IntegrationLookup;
  source: WriteBackSource;
  /** Positions and candidates as the sync engine writes them. */
  store: RecruitingStore;
  queue: JobQueue;
  /** Run the job workers in this process. */
  workers: boolean;
};

/** What the sync module's routes receive. */
export type SyncDeps = Pick<SyncModuleDeps, "config" | "database" | "logger" | "integrations"> & { sync: SyncWork };
export type SyncRoutes = (app: App, opts: { deps: SyncDeps }) => Promise<void>;

/**
 * The sync module as the proxy hosts it on its port (wired in src/runtime/wiring.ts): its job
 * workers, the bulk-sync trigger and sync-run history behind the proxy's bearer JWT, and the six
 * upstream webhook receivers (authenticated by the upstream's signature instead).
 */
export async function startSyncModule(deps: SyncModuleDeps) {
  const sync = await startSyncJobs(deps);
  const routeDeps: SyncDeps = { config: deps.config, database: deps.database, logger: deps.logger, integrations: deps.integrations, sync };
  const group = (routes: SyncRoutes) => (app: App) => routes(app, { deps: routeDeps });
  return {
    sync,
    protectedRoutes: [group(syncRoutes)],
    publicRoutes: [group(webhookRoutes)],
    close: async () => sync.stopMetrics(),
  };
}
