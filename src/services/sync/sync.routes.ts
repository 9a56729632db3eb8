import { ownedIntegrationOf } from "../../shared/http/owned-integration.js";
import {
  IntegrationSyncsQuerySchema,
  IntegrationSyncsSchema,
  SyncAllQuerySchema,
  WebhookResponseSchema,
  type IntegrationSyncs,
  type WebhookResponse,
} from "../../contracts/proxy/webhooks.js";
import { IntegrationParamsSchema } from "../../contracts/proxy/integrations.js";
import { proxyErrorResponses } from "../../contracts/proxy/common.js";
import { listSyncRuns, quietRunsAfter } from "./sync-runs.repository.js";
import { listWriteBacks } from "./write-backs.repository.js";
import type { SyncModel } from "./sync.tables.js";
import { toSyncRunEntry, toWriteBack } from "./sync-views.js";
import { callerOrg } from "../../shared/auth/caller-org.js";
import type { SyncRoutes } from "./sync-routes.deps.js";

/**
 * The bulk-sync trigger and an integration's sync-run history, behind the bearer JWT and
 * tenant-checked; none of it calls the upstream.
 */
export const syncRoutes: SyncRoutes = async (app, { deps }) => {
  app.post(
    "/webhooks/sync-all",
    {
      schema: {
        tags: ["Webhooks"],
        summary: "Start a full sync of an integration's jobs and applications",
        description:
          "`type` JOBS or APPLICATIONS syncs one model; absent, jobs then applications. Answers at once; `message` is the id of the queued sync run (follow it at `GET /integrations/{integration_id}/syncs`). A trigger while a run of the same model is queued joins it.",
        querystring: SyncAllQuerySchema,
        response: { 200: WebhookResponseSchema, ...proxyErrorResponses },
      },
      config: { ownedIntegration: { from: "query", decide: "upstream" } },
    },
    async (request): Promise<WebhookResponse> => {
      const { type } = request.query;
      const integration_id = ownedIntegrationOf(request);
      const orgId = callerOrg(request);
      const models: SyncModel[] = type === "JOBS" ? ["jobs"] : type === "APPLICATIONS" ? ["applications"] : ["jobs", "applications"];
      const run = await deps.sync.engine.start({ integrationId: integration_id, orgId, models, type: "FULL", trigger: "sync-all" });
      return { received: true, processed: false, message: run.id };
    },
  );

  app.get(
    "/integrations/:integration_id/syncs",
    {
      schema: {
        tags: ["Integrations"],
        summary: "Recent sync runs and write-backs of an integration",
        description:
          "State, counts (created, updated, unlinked, skipped, failed), timings and the last error of each run, newest first; and the interview results written back to the ATS. Incremental runs that changed nothing (each write-back's echo from the upstream starts some) are folded into the run before them as `quiet_runs` (count and last time); `include_quiet=true` lists them too.",
        params: IntegrationParamsSchema,
        querystring: IntegrationSyncsQuerySchema,
        response: { 200: IntegrationSyncsSchema, ...proxyErrorResponses },
      },
      config: { ownedIntegration: { from: "params", decide: "upstream" } },
    },
    async (request): Promise<IntegrationSyncs> => {
      const integration_id = ownedIntegrationOf(request);
      const { limit = 20, include_quiet: includeQuiet = false } = request.query;
      const orgId = callerOrg(request);
      const [runs, writeBacks] = await Promise.all([
        listSyncRuns(deps.database.db, integration_id, { limit, includeQuiet }),
        listWriteBacks(deps.database.db, orgId, integration_id, limit),
      ]);
      const quiet = includeQuiet
        ? new Map()
        : await quietRunsAfter(
            deps.database.db,
            runs.map((r) => r.id),
          );
      return { items: runs.map((r) => toSyncRunEntry(r, quiet.get(r.id))), write_backs: writeBacks.map(toWriteBack) };
    },
  );
};
