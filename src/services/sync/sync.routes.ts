import {
  IntegrationListQuerySchema,
  IntegrationListSchema,
  IntegrationSyncsQuerySchema,
  IntegrationSyncsSchema,
  SyncAllQuerySchema,
  WebhookResponseSchema,
  type IntegrationList,
  type IntegrationSyncs,
  type WebhookResponse,
} from "../../contracts/proxy/webhooks.js";
import { IntegrationParamsSchema } from "../../contracts/proxy/integrations.js";
import { proxyErrorResponses } from "../../contracts/proxy/common.js";
import { latestSyncRuns, listSyncRuns } from "./sync-runs.repository.js";
import { countOpenWriteBacks, listWriteBacks } from "./write-backs.repository.js";
import { decodeKeysetCursor, encodeKeysetCursor } from "../../shared/db/keyset-cursor.js";
import { validationError } from "../../shared/errors.js";
import type { OwnedIntegration } from "./ports.js";
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

function toIntegrationSummary(i: OwnedIntegration, runs: SyncRunRow[], pendingWriteBacks: number) {
  const last = (model: SyncModel) => runs.find((r) => r.integrationId === i.id && r.model === model);
  const jobs = last("jobs");
  const applications = last("applications");
  return {
    id: i.id,
    tool: i.tool,
    category: i.category,
    state: i.status,
    setup_status: i.setupStatus,
    created_at: i.createdAt.toISOString(),
    last_sync: { jobs: jobs ? toSyncRun(jobs) : null, applications: applications ? toSyncRun(applications) : null },
    pending_write_backs: pendingWriteBacks,
  };
}

// Integration ids are the upstream's (`tool:id`): printable, bounded.
const INTEGRATION_ID = /^[\x21-\x7e]{1,200}$/;

/**
 * Hirebridge's own view of the caller's integrations (the list, the bulk-sync trigger and the
 * sync-run history), behind the bearer JWT and tenant-checked; none of it calls the upstream.
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
        description:
          "State, counts (created, updated, unlinked, skipped, failed), timings and the last error of each run, newest first; and the interview results written back to the ATS.",
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

  app.get(
    "/integrations",
    {
      schema: {
        tags: ["Integrations"],
        summary: "The caller's organisation's integrations",
        description:
          "Every live integration of the caller's organisation, oldest first, with its tool, category, state, the newest sync run of each model and the number of write-backs still to go out. With `limit`, one page and a `next_cursor`. Hirebridge's own records: the upstream is not called.",
        querystring: IntegrationListQuerySchema,
        response: {
          200: IntegrationListSchema,
          401: proxyErrorResponses[401],
          403: proxyErrorResponses[403],
          422: proxyErrorResponses[422],
        },
      },
    },
    async (request): Promise<IntegrationList> => {
      const orgId = callerOrg(request);
      const { limit, cursor } = request.query;
      const after = cursor === undefined ? undefined : decodeKeysetCursor(cursor, (id) => INTEGRATION_ID.test(id));
      if (after === null) throw validationError([{ loc: ["query", "cursor"], msg: "Invalid cursor", type: "value_error" }]);
      const page = await deps.integrations.listOwned(orgId, { limit, after });
      const ids = page.rows.map((r) => r.id);
      const [runs, pending] = await Promise.all([latestSyncRuns(deps.database.db, ids), countOpenWriteBacks(deps.database.db, ids)]);
      const answer: IntegrationList = { items: page.rows.map((i) => toIntegrationSummary(i, runs, pending.get(i.id) ?? 0)) };
      if (limit !== undefined) answer.next_cursor = page.more && page.last ? encodeKeysetCursor(page.last) : null;
      return answer;
    },
  );
};
