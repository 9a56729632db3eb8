import {
  AssessmentOrderListQuerySchema,
  AssessmentOrderPageSchema,
  AssessmentSettingsSchema,
  AssessmentSettingsUpdateSchema,
  PublishPackagesResultSchema,
  type AssessmentOrderPage,
} from "../../../contracts/proxy/assessment-orders.js";
import { ErrorDetailSchema, withDescription } from "../../../contracts/common.js";
import { proxyErrorResponses } from "../../../contracts/proxy/common.js";
import { IntegrationParamsSchema } from "../../../contracts/proxy/integrations.js";
import { callerOrg } from "../../../shared/auth/caller-org.js";
import { AppError, notFound, validationError } from "../../../shared/errors.js";
import type { App } from "../../../shared/http/create-app.js";
import type { OwnedIntegration } from "../../../shared/ports/integrations.js";
import { ownedIntegrationOf } from "../../../shared/http/owned-integration.js";
import type { FastifyRequest } from "fastify";
import { isPermanentUpstreamError, isRetryableUpstreamError } from "../ats-reader.js";
import { decodeOrderCursor, findSettings, isUuid, listOrders, setTakesOrders } from "./assessment-orders.repository.js";
import { toAssessmentOrder } from "./order-view.js";
import type { AssessmentRecruiting } from "../../../shared/ports/assessment-orders.js";
import type { Queryable, Tx } from "../../../shared/db/database.js";
import { publishTo, takesOrders, type PackagesDeps } from "./packages.js";
import type { AssessmentOrderRow } from "./assessments.tables.js";

const errors = {
  401: proxyErrorResponses[401],
  403: proxyErrorResponses[403],
  404: proxyErrorResponses[404],
  422: proxyErrorResponses[422],
};
const upstreamErrors = { 502: proxyErrorResponses[502], 503: withDescription(ErrorDetailSchema, "The ATS did not answer; try again") };

/** An upstream failure of a publication, as the caller's answer (502 refused, 503 try again). */
function upstreamFailure(err: unknown): never {
  if (isPermanentUpstreamError(err)) throw new AppError("UPSTREAM_UNAVAILABLE", `The ATS refused the packages: ${err.message}`);
  if (isRetryableUpstreamError(err)) throw new AppError("UNAVAILABLE", `The ATS did not take the packages now: ${err.message}`);
  throw err;
}

/** The listing's rows with the names of their packages, positions and candidates (the organisation's own only). */
async function toPage(recruiting: AssessmentRecruiting<Tx, Queryable>, deps: PackagesDeps, orgId: string, rows: AssessmentOrderRow[]) {
  const positions = [...new Set(rows.flatMap((r) => [r.positionId, isUuid(r.packageId) ? r.packageId : null]))];
  const candidates = [...new Set(rows.map((r) => r.candidateId))];
  const names = await recruiting.names(deps.db, orgId, {
    positions: positions.filter((p): p is string => p !== null),
    candidates: candidates.filter((c): c is string => c !== null),
  });
  return rows.map((r) => toAssessmentOrder(r, names));
}

/**
 * The owned-integration guard checks each route's integration (shared/http/owned-integration.ts), as
 * every proxy operation does: one the upstream says is the caller's organisation's
 * (end_user.origin_id) is adopted; any other is a 404.
 */
const OWNED = { ownedIntegration: { from: "params", decide: "upstream" } } as const;

/** The integration the guard checked, as Hirebridge records it. */
type Owned = (request: FastifyRequest) => Promise<OwnedIntegration>;

/** POST …/assessment/packages/publish: the explicit republish. */
function registerPublish(app: App, deps: PackagesDeps): void {
  app.post(
    "/integrations/:integration_id/assessment/packages/publish",
    {
      schema: {
        tags: ["Assessment"],
        summary: "Publish the organisation's interview packages to the integration",
        description:
          "Replaces the integration's packages upstream with the organisation's positions in state `template` (type VIDEO_INTERVIEW, name, role description). Hirebridge does this by itself when packages change; this is the explicit republish.",
        params: IntegrationParamsSchema,
        response: { 200: PublishPackagesResultSchema, ...errors, ...upstreamErrors },
      },
      config: OWNED,
    },
    async (request) => {
      const orgId = callerOrg(request);
      return publishTo(deps, orgId, ownedIntegrationOf(request)).catch(upstreamFailure);
    },
  );
}

/** GET …/assessment/orders: the orders Hirebridge recorded. */
function registerOrders(app: App, deps: PackagesDeps): void {
  app.get(
    "/integrations/:integration_id/assessment/orders",
    {
      schema: {
        tags: ["Assessment"],
        summary: "The orders Hirebridge received from the integration",
        description:
          "Newest first, with status, package, candidate and result status. Hirebridge's own records: the upstream is not called.",
        params: IntegrationParamsSchema,
        querystring: AssessmentOrderListQuerySchema,
        response: { 200: AssessmentOrderPageSchema, ...errors },
      },
      config: OWNED,
    },
    async (request): Promise<AssessmentOrderPage> => {
      const orgId = callerOrg(request);
      const after = request.query.after === undefined ? undefined : decodeOrderCursor(request.query.after);
      if (after === null) throw validationError([{ loc: ["query", "after"], msg: "Invalid cursor", type: "value_error" }]);
      const page = await listOrders(deps.db, orgId, ownedIntegrationOf(request), { limit: request.query.limit ?? 50, after });
      return { items: await toPage(deps.recruiting, deps, orgId, page.rows), next: page.next };
    },
  );
}

/** GET and PUT …/assessment/settings: whether the integration takes orders. */
function registerSettings(app: App, deps: PackagesDeps, owned: Owned): void {
  const settings = async (integration: OwnedIntegration) => {
    const row = await findSettings(deps.db, integration.id);
    return {
      takes_orders: takesOrders(integration.category, row),
      category: integration.category,
      published_at: row?.publishedAt?.toISOString() ?? null,
    };
  };
  app.get(
    "/integrations/:integration_id/assessment/settings",
    {
      schema: {
        tags: ["Assessment"],
        summary: "Whether the integration takes assessment orders",
        description:
          "`takes_orders` is always true for an integration of category ASSESSMENT; any other takes orders only when the organisation turns it on. `published_at`: when the packages were last published to it.",
        params: IntegrationParamsSchema,
        response: { 200: AssessmentSettingsSchema, ...errors },
      },
      config: OWNED,
    },
    async (request) => settings(await owned(request)),
  );
  app.put(
    "/integrations/:integration_id/assessment/settings",
    {
      schema: {
        tags: ["Assessment"],
        summary: "Turn assessment orders on or off for the integration",
        description: "Turned on, the organisation's packages are published to it at once (and again whenever they change).",
        params: IntegrationParamsSchema,
        body: AssessmentSettingsUpdateSchema,
        response: { 200: AssessmentSettingsSchema, ...errors, ...upstreamErrors },
      },
      config: OWNED,
    },
    async (request) => {
      const orgId = callerOrg(request);
      const integration = await owned(request);
      await setTakesOrders(deps.db, integration.id, orgId, request.body.takes_orders);
      if (request.body.takes_orders) await publishTo(deps, orgId, integration.id).catch(upstreamFailure);
      return settings(integration);
    },
  );
}

/**
 * The caller's view and steering of an integration's assessment channel, behind the bearer JWT and
 * for the caller's own integration only: the orders Hirebridge recorded, the republish of the
 * organisation's packages, and whether the integration takes orders.
 */
export function assessmentRoutes(deps: PackagesDeps) {
  const owned: Owned = async (request) => {
    const row = await deps.integrations.findOwned(ownedIntegrationOf(request), callerOrg(request));
    if (!row) throw notFound("Integration not found");
    return row;
  };
  return async (app: App) => {
    registerPublish(app, deps);
    registerOrders(app, deps);
    registerSettings(app, deps, owned);
  };
}
