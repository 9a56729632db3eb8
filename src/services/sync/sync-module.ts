import type { App } from "../../shared/http/create-app.js";
import type { UpstreamFailure } from "./activity/upstream-failures.js";
import { NO_EVENTS_OUT } from "../../shared/no-events-out.js";
import { assessmentRoutes } from "./assessments/assessment.routes.js";
import { orderReceiverRoutes } from "./assessments/order-receivers.routes.js";
import { startSyncJobs, type SyncJobsDeps, type SyncWork } from "./sync-jobs.js";
import type { SyncDeps, SyncRoutes } from "./sync-routes.deps.js";
import { activityRoutes } from "./activity/activity.routes.js";
import { integrationSummaryRoutes } from "./integrations.routes.js";
import { syncRoutes } from "./sync.routes.js";
import { webhookEventRoutes } from "./webhooks/webhook-events.routes.js";
import { webhookRoutes } from "./webhooks/webhooks.routes.js";

/** What the sync module is built from: the hosting proxy's parts and the recruiting API's write-back source. */
export type SyncModuleDeps = SyncJobsDeps;

/** The assessment channel's routes (assessments/), when the recruiting side is handed over. */
function assessmentChannel(deps: SyncModuleDeps, sync: SyncWork, routeDeps: SyncDeps) {
  const recruiting = deps.assessments;
  if (!recruiting) return { protectedRoutes: [], publicRoutes: [] };
  // Both groups answer callers (the receivers synchronously): the request path's pool.
  const db = deps.database.requestDb;
  const events = deps.events ?? NO_EVENTS_OUT;
  return {
    protectedRoutes: [assessmentRoutes({ db, reader: sync.reader, integrations: deps.integrations, recruiting })],
    publicRoutes: [orderReceiverRoutes(routeDeps, { db, integrations: deps.integrations, recruiting, events, logger: deps.logger })],
  };
}

/**
 * The sync module as the proxy hosts it on its port (wired in src/runtime/wiring.ts): its job
 * workers, the bulk-sync trigger, sync-run history, and the stored webhook events with the re-drive of
 * failed ones behind the proxy's bearer JWT, and the six
 * upstream webhook receivers (authenticated by the upstream's signature instead).
 */
export async function startSyncModule(deps: SyncModuleDeps) {
  const sync = await startSyncJobs(deps);
  // Routes answer callers: their statements run on the request path's pool (its shorter bound).
  const database = { ...deps.database, db: deps.database.requestDb };
  const routeDeps: SyncDeps = {
    config: deps.config,
    database,
    logger: deps.logger,
    integrations: deps.integrations,
    assessments: deps.assessments,
    sync,
  };
  const group = (routes: SyncRoutes) => (app: App) => routes(app, { deps: routeDeps });
  const assessments = assessmentChannel(deps, sync, routeDeps);
  return {
    sync,
    protectedRoutes: [
      group(syncRoutes),
      group(integrationSummaryRoutes),
      group(activityRoutes),
      group(webhookEventRoutes),
      ...assessments.protectedRoutes,
    ],
    publicRoutes: [group(webhookRoutes), ...assessments.publicRoutes],
    // The proxy's own calls that the upstream failed join the integration's trail.
    onUpstreamFailure: (f: Omit<UpstreamFailure, "source">) => sync.failures.record({ ...f, source: "proxy" }),
    close: () => sync.stop(),
  };
}
