import type { App } from "../../shared/http/create-app.js";
import type { UpstreamFailure } from "./activity/upstream-failures.js";
import { startSyncJobs, type SyncJobsDeps } from "./sync-jobs.js";
import type { SyncDeps, SyncRoutes } from "./sync-routes.deps.js";
import { activityRoutes } from "./activity/activity.routes.js";
import { integrationSummaryRoutes } from "./integrations.routes.js";
import { syncRoutes } from "./sync.routes.js";
import { webhookEventRoutes } from "./webhooks/webhook-events.routes.js";
import { webhookRoutes } from "./webhooks/webhooks.routes.js";

/** What the sync module is built from: the hosting proxy's parts and the recruiting API's write-back source. */
export type SyncModuleDeps = SyncJobsDeps;

/**
 * The sync module as the proxy hosts it on its port (wired in src/runtime/wiring.ts): its job
 * workers, the bulk-sync trigger, sync-run history, and the stored webhook events with the re-drive of
 * failed ones behind the proxy's bearer JWT, and the six
 * upstream webhook receivers (authenticated by the upstream's signature instead).
 */
export async function startSyncModule(deps: SyncModuleDeps) {
  const sync = await startSyncJobs(deps);
  const routeDeps: SyncDeps = { config: deps.config, database: deps.database, logger: deps.logger, integrations: deps.integrations, sync };
  const group = (routes: SyncRoutes) => (app: App) => routes(app, { deps: routeDeps });
  return {
    sync,
    protectedRoutes: [group(syncRoutes), group(integrationSummaryRoutes), group(activityRoutes), group(webhookEventRoutes)],
    publicRoutes: [group(webhookRoutes)],
    // The proxy's own calls that the upstream failed join the integration's trail.
    onUpstreamFailure: (f: Omit<UpstreamFailure, "source">) => sync.failures.record({ ...f, source: "proxy" }),
    close: () => sync.stop(),
  };
}
