import { ownedIntegrationOf } from "../../shared/http/owned-integration.js";
import { IntegrationParamsSchema } from "../../contracts/proxy/integrations.js";
import { proxyErrorResponses } from "../../contracts/proxy/common.js";
import {
  IntegrationListQuerySchema,
  IntegrationListSchema,
  IntegrationSummarySchema,
  IntegrationUpdateSchema,
  type IntegrationList,
  type IntegrationSummary,
} from "../../contracts/proxy/webhooks.js";
import { callerOrg } from "../../shared/auth/caller-org.js";
import { decodeKeysetCursor, encodeKeysetCursor } from "../../shared/db/keyset-cursor.js";
import { notFound, validationError } from "../../shared/errors.js";
import type { OwnedIntegration } from "../../shared/ports/integrations.js";
import type { SyncDeps, SyncRoutes } from "./sync-routes.deps.js";
import { latestSyncRuns } from "./sync-runs.repository.js";
import { toIntegrationSummary } from "./sync-views.js";
import { countOpenWriteBacks } from "./write-backs.repository.js";

// Integration ids are the upstream's (`tool:id`): printable, bounded.
const INTEGRATION_ID = /^[\x21-\x7e]{1,200}$/;

const ownErrors = { 401: proxyErrorResponses[401], 403: proxyErrorResponses[403], 422: proxyErrorResponses[422] };

/** Summaries of an organisation's integrations: their newest runs, write-backs waiting and health, in a few set-based queries. */
async function summaries(deps: SyncDeps, orgId: string, rows: OwnedIntegration[]): Promise<IntegrationSummary[]> {
  const ids = rows.map((r) => r.id);
  const [runs, pending, health] = await Promise.all([
    latestSyncRuns(deps.database.db, ids),
    countOpenWriteBacks(deps.database.db, orgId, ids),
    deps.sync.health.healthOfAll(rows.map((r) => ({ id: r.id, orgId, status: r.status }))),
  ]);
  return rows.map((i) => toIntegrationSummary(i, runs, pending.get(i.id) ?? 0, health.get(i.id)!));
}

/**
 * Hirebridge's own record of the caller's integrations: the list (with names and health), one
 * integration's summary, and its display name. Behind the bearer JWT, tenant-checked; none of it
 * calls the upstream.
 */
export const integrationSummaryRoutes: SyncRoutes = async (app, { deps }) => {
  app.get(
    "/integrations",
    {
      schema: {
        tags: ["Integrations"],
        summary: "The caller's organisation's integrations",
        description:
          "Every live integration of the caller's organisation, oldest first, with its display name, tool, category, state, health, the newest sync run of each model and the number of write-backs still to go out. With `limit`, one page and a `next_cursor`. Hirebridge's own records: the upstream is not called.",
        querystring: IntegrationListQuerySchema,
        response: { 200: IntegrationListSchema, ...ownErrors },
      },
    },
    async (request): Promise<IntegrationList> => {
      const orgId = callerOrg(request);
      const { limit, cursor } = request.query;
      const after = cursor === undefined ? undefined : decodeKeysetCursor(cursor, (id) => INTEGRATION_ID.test(id));
      if (after === null) throw validationError([{ loc: ["query", "cursor"], msg: "Invalid cursor", type: "value_error" }]);
      const page = await deps.integrations.listOwned(orgId, { limit, after });
      const answer: IntegrationList = { items: await summaries(deps, orgId, page.rows) };
      if (limit !== undefined) answer.next_cursor = page.more && page.last ? encodeKeysetCursor(page.last) : null;
      return answer;
    },
  );

  app.get(
    "/integrations/:integration_id/summary",
    {
      schema: {
        tags: ["Integrations"],
        summary: "Hirebridge's summary of one integration",
        description:
          "The integration as `GET /integrations` lists it: display name, state, health, newest sync runs, write-backs waiting. Hirebridge's own records: the upstream is not called (`GET /integrations/{integration_id}` gives the upstream's details).",
        params: IntegrationParamsSchema,
        response: { 200: IntegrationSummarySchema, ...ownErrors, 404: proxyErrorResponses[404] },
      },
      // Hirebridge's records decide; the upstream is not asked.
      config: { ownedIntegration: { from: "params", decide: "records" } },
    },
    async (request): Promise<IntegrationSummary> => {
      const orgId = callerOrg(request);
      const integration_id = ownedIntegrationOf(request);
      const row = await deps.integrations.findOwned(integration_id, orgId);
      if (!row) throw notFound("Integration not found");
      return (await summaries(deps, orgId, [row]))[0]!;
    },
  );

  app.patch(
    "/integrations/:integration_id",
    {
      schema: {
        tags: ["Integrations"],
        summary: "Name an integration",
        description:
          "Sets the name people see in the console, the CLI and the API (`display_name`); null goes back to the end user's organisation as the upstream names it. Hirebridge's own record: nothing changes upstream.",
        params: IntegrationParamsSchema,
        body: IntegrationUpdateSchema,
        response: { 200: IntegrationSummarySchema, ...ownErrors, 404: proxyErrorResponses[404] },
      },
      // Hirebridge's records decide; the upstream is not asked.
      config: { ownedIntegration: { from: "params", decide: "records" } },
    },
    async (request): Promise<IntegrationSummary> => {
      const orgId = callerOrg(request);
      const integration_id = ownedIntegrationOf(request);
      const name = request.body.display_name?.trim() || null;
      const row = await deps.integrations.rename(integration_id, orgId, name);
      if (!row) throw notFound("Integration not found");
      return (await summaries(deps, orgId, [row]))[0]!;
    },
  );
};
