import { ownedIntegrationOf } from "../../../shared/http/owned-integration.js";
import {
  ACTIVITY_KINDS,
  ActivityPageSchema,
  ActivityQuerySchema,
  WriteBackParamsSchema,
  type ActivityKind,
  type ActivityPage,
} from "../../../contracts/proxy/activity.js";
import { proxyErrorResponses } from "../../../contracts/proxy/common.js";
import { IntegrationParamsSchema } from "../../../contracts/proxy/integrations.js";
import { WriteBackSchema, type WriteBack } from "../../../contracts/proxy/webhooks.js";
import { withDescription, ErrorDetailSchema } from "../../../contracts/common.js";
import { callerOrg } from "../../../shared/auth/caller-org.js";
import { decodeKeysetCursor, encodeKeysetCursor } from "../../../shared/db/keyset-cursor.js";
import { notFound, validationError } from "../../../shared/errors.js";
import type { SyncRoutes } from "../sync-routes.deps.js";
import { displayName, toWriteBack } from "../sync-views.js";
import { activityPage, activityRows } from "./activity.repository.js";
import { foldedActivity, foldedPage, orderNameIds } from "./activity-views.js";

/** Entries read beyond a page's `limit`, so identical events folded into its last row are not split across pages. */
const FOLD_LOOKAHEAD = 20;

const KEY = new RegExp(`^(${ACTIVITY_KINDS.join("|")}):[\\s\\S]{1,300}$`);
const errors = {
  401: proxyErrorResponses[401],
  403: proxyErrorResponses[403],
  404: proxyErrorResponses[404],
  422: proxyErrorResponses[422],
};

/**
 * An integration's trail (webhook events, sync runs, write-backs, failed upstream calls), one
 * keyset-paginated history filterable by kind, status, time, candidate and position; and the retry
 * of a failed write-back from it. Behind the bearer JWT, tenant-checked; the upstream is not called.
 */
export const activityRoutes: SyncRoutes = async (app, { deps }) => {
  app.get(
    "/integrations/:integration_id/activity",
    {
      schema: {
        tags: ["Integrations"],
        summary: "An integration's activity: events, sync runs, write-backs, failed upstream calls and assessment orders",
        description:
          "Newest first, `limit` at a time with `next_cursor`. An assessment order is an entry when it is received (accepted or rejected); its result is its write-back's entry. Each item has its kind, status, time, a line for people with the names of what it touched (candidate, position, stage), its error and attempts, and its details. `candidate_id` or `position_id` narrows it to that candidate's or position's write-backs and their failed calls. A failed write-back is `retryable` (`POST …/write-backs/{write_back_id}/retry`), and so is a failed event (`POST /webhooks/events/{event_id}/redrive`).",
        params: IntegrationParamsSchema,
        querystring: ActivityQuerySchema,
        response: { 200: ActivityPageSchema, ...errors },
      },
      // Hirebridge's records decide; the upstream is not asked.
      config: { ownedIntegration: { from: "params", decide: "records" } },
    },
    async (request): Promise<ActivityPage> => {
      const orgId = callerOrg(request);
      const integration_id = ownedIntegrationOf(request);
      const q = request.query;
      const after = q.cursor === undefined ? undefined : decodeKeysetCursor(q.cursor, (key) => KEY.test(key));
      if (after === null) throw validationError([{ loc: ["query", "cursor"], msg: "Invalid cursor", type: "value_error" }]);
      const integration = await deps.integrations.findOwned(integration_id, orgId);
      if (!integration) throw notFound("Integration not found");
      const limit = q.limit ?? 50;
      const filter = {
        integrationId: integration_id,
        orgId,
        kinds: q.kind ? (q.kind.split(",") as ActivityKind[]) : ACTIVITY_KINDS,
        statuses: q.status?.split(","),
        since: q.since,
        until: q.until,
        candidateId: q.candidate_id,
        positionId: q.position_id,
      };
      // Read ahead, so identical events folded into a page's last row are not split across pages.
      const found = await activityPage(deps.database.db, filter, { limit: limit + FOLD_LOOKAHEAD, after });
      const rows = await activityRows(deps.database.db, found);
      // Orders name their packages and candidates: the recruiting side's names, the organisation's only.
      const ids = orderNameIds(rows);
      const names =
        deps.assessments && (ids.positions.length || ids.candidates.length)
          ? await deps.assessments.names(deps.database.db, orgId, ids)
          : new Map<string, string>();
      const { items, last, more } = foldedPage(foldedActivity(found, rows, names), limit, found.length > limit + FOLD_LOOKAHEAD);
      return {
        integration: { id: integration.id, display_name: displayName(integration) },
        items,
        next_cursor: more && last ? encodeKeysetCursor({ createdAt: last.cursorAt, id: last.key }) : null,
      };
    },
  );

  app.post(
    "/integrations/:integration_id/write-backs/:write_back_id/retry",
    {
      schema: {
        tags: ["Integrations"],
        summary: "Retry a failed write-back",
        description:
          "Takes a failed write-back back to pending and queues it; the steps it did (stage move, result link, note) are not repeated. A stage not moved yet is taken again from the position's current stage mapping. 409 when the write-back is not failed.",
        params: WriteBackParamsSchema,
        response: { 200: WriteBackSchema, ...errors, 409: withDescription(ErrorDetailSchema, "The write-back is not failed") },
      },
      // Hirebridge's records decide; the upstream is not asked.
      config: { ownedIntegration: { from: "params", decide: "records" } },
    },
    async (request): Promise<WriteBack> => {
      const orgId = callerOrg(request);
      const { write_back_id } = request.params;
      const integration_id = ownedIntegrationOf(request);
      const row = await deps.sync.retryWriteBack({ integrationId: integration_id, orgId, writeBackId: write_back_id });
      request.log.info({ write_back: row.id, integration_id }, "failed write-back retried");
      await deps.sync.health.refreshQuietly(integration_id);
      return toWriteBack(row);
    },
  );
};
