import { ownedIntegrationOf } from "../../../shared/http/owned-integration.js";
import { ErrorDetailSchema, withDescription } from "../../../contracts/common.js";
import { proxyErrorResponses } from "../../../contracts/proxy/common.js";
import {
  WebhookEventListQuerySchema,
  WebhookEventListSchema,
  WebhookEventParamsSchema,
  WebhookEventRecordSchema,
  type WebhookEventList,
  type WebhookEventRecord,
} from "../../../contracts/proxy/webhook-events.js";
import { callerOrg } from "../../../shared/auth/caller-org.js";
import type { SyncRoutes } from "../sync-routes.deps.js";
import { redriveWebhookEvent, toWebhookEventRecord } from "./redrive.js";
import { listWebhookEvents } from "./webhook-events.repository.js";

const { 401: unauthorized, 403: forbidden, 404: notFound, 422: invalid } = proxyErrorResponses;

/**
 * The caller's organisation's stored webhook events (failed ones by default, with their error and
 * attempts) and the re-drive of a failed one, behind the bearer JWT; none of it calls the upstream.
 */
export const webhookEventRoutes: SyncRoutes = async (app, { deps }) => {
  app.get(
    "/webhooks/events",
    {
      schema: {
        tags: ["Webhooks"],
        summary: "The organisation's webhook events, failed ones by default",
        description:
          "Events the upstream delivered for the caller's organisation, newest first, in one status (default `failed`: retries ran out, or the event itself cannot be processed), with their error and attempts. `integration_id` narrows to one integration of the organisation (404 for another's).",
        querystring: WebhookEventListQuerySchema,
        response: { 200: WebhookEventListSchema, 401: unauthorized, 403: forbidden, 404: notFound, 422: invalid },
      },
      config: { ownedIntegration: { from: "query", decide: "upstream", optional: true } },
    },
    async (request): Promise<WebhookEventList> => {
      const { status = "failed", integration_id, limit = 50 } = request.query;
      const orgId = callerOrg(request);
      const integrationId = integration_id === undefined ? undefined : ownedIntegrationOf(request);
      const rows = await listWebhookEvents(deps.database.db, orgId, { status, integrationId, limit });
      return { items: rows.map(toWebhookEventRecord) };
    },
  );

  app.post(
    "/webhooks/events/:event_id/redrive",
    {
      schema: {
        tags: ["Webhooks"],
        summary: "Re-drive a failed webhook event",
        description:
          "Queues a failed event of the caller's organisation again: its work runs once more (its attempts and last error are kept, a new failure counts on). Answers the event, now `queued`. 404 when the event is not the organisation's; 409 when it is not failed.",
        params: WebhookEventParamsSchema,
        response: {
          200: WebhookEventRecordSchema,
          401: unauthorized,
          403: forbidden,
          404: withDescription(ErrorDetailSchema, "No such event of the caller's organisation"),
          409: withDescription(ErrorDetailSchema, "The event is not failed (queued, processed or ignored)"),
          422: invalid,
        },
      },
    },
    async (request): Promise<WebhookEventRecord> => {
      const row = await redriveWebhookEvent({ db: deps.database.db, queue: deps.sync.queue }, callerOrg(request), request.params.event_id);
      request.log.info({ event_id: row.id, event_type: row.type, integration_id: row.integrationId }, "webhook event re-driven");
      // No longer failed: its integration's health may be better.
      if (row.integrationId) await deps.sync.health.refreshQuietly(row.integrationId);
      return toWebhookEventRecord(row);
    },
  );
};
