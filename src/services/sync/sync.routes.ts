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
import { listSyncRuns } from "./sync-runs.repository.js";
import { listWriteBacks } from "./write-backs.repository.js";
import type { SyncModel, SyncRunRow, WriteBackRow } from "./sync.tables.js";
import { callerOrg } from "../../shared/auth/caller-org.js";
import type { SyncRoutes } from "./sync-module.js";

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function toSyncRun(r: SyncRunRow) {
  return {
    id: r.id,
    model: r.model,
    type: r.type,
    trigger: r.trigger,
    state: r.state,
    created: r.createdCount,
    updated: r.updatedCount,
    unlinked: r.unlinkedCount,
    skipped: r.skippedCount,
    failed: r.failedCount,
    pages: r.pages,
    updated_after: iso(r.updatedAfter),
    created_at: r.createdAt.toISOString(),
    started_at: iso(r.startedAt),
    finished_at: iso(r.finishedAt),
    duration_ms: r.startedAt && r.finishedAt ? r.finishedAt.getTime() - r.startedAt.getTime() : null,
    last_error: r.lastError,
  };
}

function toWriteBack(w: WriteBackRow) {
  return {
    id: w.id,
    application_id: w.applicationId,
    candidate_id: w.candidateId,
    outcome: w.outcome,
    target_stage: w.targetStage,
    state: w.state,
    stage_moved_at: iso(w.stageMovedAt),
    link_added_at: iso(w.linkAddedAt),
    note_added_at: iso(w.noteAddedAt),
    attempts: w.attempts,
    last_error: w.lastError,
    created_at: w.createdAt.toISOString(),
  };
}

/** The bulk-sync trigger and the sync-run history, both behind the bearer JWT and tenant-checked. */
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
    },
    async (request): Promise<WebhookResponse> => {
      const { integration_id, type } = request.query;
      const orgId = callerOrg(request);
      await deps.integrations.requireOwned(integration_id, orgId, request.id, request.log);
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
        description: "State, counts (created, updated, unlinked, skipped, failed), timings and the last error of each run, newest first; and the interview results written back to the ATS.",
        params: IntegrationParamsSchema,
        querystring: IntegrationSyncsQuerySchema,
        response: { 200: IntegrationSyncsSchema, ...proxyErrorResponses },
      },
    },
    async (request): Promise<IntegrationSyncs> => {
      const { integration_id } = request.params;
      const { limit = 20 } = request.query;
      await deps.integrations.requireOwned(integration_id, callerOrg(request), request.id, request.log);
      const [runs, writeBacks] = await Promise.all([
        listSyncRuns(deps.database.db, integration_id, limit),
        listWriteBacks(deps.database.db, integration_id, limit),
      ]);
      return { items: runs.map(toSyncRun), write_backs: writeBacks.map(toWriteBack) };
    },
  );
};
