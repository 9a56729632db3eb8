import type { FastifyPluginAsync, RouteOptions } from "fastify";
import type { Logger } from "pino";
import { protectWithBearer } from "../../shared/auth/bearer.plugin.js";
import type { Verify } from "../../shared/auth/verify-jwt.js";
import { type BaseConfig, corsOriginsOf, serviceUrls } from "../../shared/config.js";
import { createCandidateIntake } from "./candidates/candidate-intake.js";
import { NO_EVENTS_OUT } from "../../shared/no-events-out.js";
import type { Database, Db, Queryable } from "../../shared/db/database.js";
import type { AuditLog } from "../../shared/ports/audit-log.js";
import type { EventsOut } from "../../shared/ports/events-out.js";
import type { IntegrationOwnership } from "../../shared/ports/integration-ownership.js";
import { createApp, type App } from "../../shared/http/create-app.js";
import { registerProtection } from "../../shared/http/protection.js";
import { appendRouteHook } from "../../shared/http/route-hooks.js";
import { docsOAuth, registerOpenApi } from "../../shared/http/openapi.js";
import {
  CANDIDATE_LIST_CACHE_BYTES,
  CandidateListCache,
  FOLD_ALL_EVERY_MS,
  startListChangeFolding,
} from "./candidates/candidate-list-cache.js";
import { candidateExportRoutes } from "./candidates/candidate-export.routes.js";
import { candidateRoutes } from "./candidates/candidates.routes.js";
import type { RecruitingContext } from "./context.js";
import { erasureRoutes } from "./erasure/erasure.routes.js";
import { reportValidation, strictInputFor } from "./http/strict-input.js";
import { purgeExpiredKeys } from "./idempotency/idempotency.repository.js";
import { idempotentCreate } from "./idempotency/idempotent-create.js";
import { interviewPageRoutes } from "./interviews/interview-page.routes.js";
import { resultsPageRoutes } from "./interviews/results-page.routes.js";
import { interviewRoutes } from "./interviews/interviews.routes.js";
import type { RecruitingHooks } from "./interviews/interviews.service.js";
import { orgRoutes } from "./org/org.routes.js";
import { tenantGuard } from "./org/tenant-guard.js";
import { positionRoutes } from "./positions/positions.routes.js";

export type RecruitingDeps = {
  config: BaseConfig;
  database: Database;
  logger: Logger;
  /** Bearer verification (the token service's or Keycloak's JWKS); tests pass the test identity's. */
  verify: Verify;
  /** Extension points for the sync engine's write-back. */
  hooks?: RecruitingHooks;
  /** Budget of the candidate list answers kept in memory (0 keeps none); tests make it small. */
  candidateListCacheBytes?: number;
  /** Where the events of changes are recorded (outbound webhooks); none recorded without it. */
  events?: EventsOut<Queryable>;
  /** The organisations' audit log (src/runtime/wiring.ts): each change records its entry in its own transaction. */
  audit?: AuditLog<Queryable, Db>;
  /** Route groups of other modules served here (outbound webhooks' endpoints), wired in src/runtime/wiring.ts. */
  modules?: HostedRoutes[];
  /**
   * Which integrations belong to which organisation (the proxy's integrations table, wired in
   * src/runtime/wiring.ts): an upstream link must name one of the caller's. Without it no link is accepted.
   */
  ownership?: IntegrationOwnership;
};

/** A module's routes on the recruiting API: `routes` behind the bearer token, `orgRoutes` also behind the tenant guard. */
export type HostedRoutes = { routes: FastifyPluginAsync[]; orgRoutes: FastifyPluginAsync[] };

/** Owns nothing: an app built without the integrations' owners refuses every upstream link. */
const NO_INTEGRATIONS = { ownerOf: async () => null, belongsTo: async () => false } satisfies IntegrationOwnership;

export const API_PREFIX = "/api/v1";

/** The recruiting API's own route groups under `/org/{org_id}/…` (behind the tenant guard). */
const ORG_ROUTE_GROUPS = [positionRoutes, candidateRoutes, candidateExportRoutes, interviewRoutes, erasureRoutes];

/** How often each instance deletes the idempotency keys past their retention (24 h). */
const IDEMPOTENCY_PURGE_EVERY_MS = 10 * 60_000;

/** The interview page's base URL on this app, and the front end's (INTERVIEW_BASE_URL) when one is configured. */
function interviewBasesOf(config: BaseConfig): { ownBase: string; configuredBase: string | undefined } {
  const ownBase = `${serviceUrls(config).api.replace(/\/api\/v1$/, "")}/interview`;
  return { ownBase, configuredBase: config.INTERVIEW_BASE_URL?.replace(/\/+$/, "") };
}

/** What the recruiting routes share, built once per app. */
function recruitingContextOf(deps: RecruitingDeps, interviewBaseUrl: string): RecruitingContext {
  // Requests use the request path's pool (DATABASE_REQUEST_STATEMENT_TIMEOUT_MS: a caller waits); schedules keep the workers' bound.
  const forRequests: Database = { ...deps.database, db: deps.database.requestDb };
  return {
    db: forRequests.db,
    interviewBaseUrl,
    hooks: deps.hooks ?? {},
    candidateLists: new CandidateListCache(deps.candidateListCacheBytes ?? CANDIDATE_LIST_CACHE_BYTES),
    candidateIntake: createCandidateIntake(forRequests, deps.events ?? NO_EVENTS_OUT),
    events: deps.events ?? NO_EVENTS_OUT,
    ownership: deps.ownership ?? NO_INTEGRATIONS,
    idempotent: idempotentCreate(forRequests.db),
    erasureKey: deps.config.ERASURE_SUPPRESSION_SECRET,
    ...(deps.audit ? { audit: deps.audit } : {}),
  };
}

/** The app's timers, stopped when it closes: expired idempotency keys purged, the candidate lists' changes folded. */
function startUpkeep(app: App, database: Database): void {
  const purging = setInterval(() => {
    purgeExpiredKeys(database.db).catch((err: unknown) => app.log.warn({ err }, "purging expired idempotency keys failed"));
  }, IDEMPOTENCY_PURGE_EVERY_MS);
  purging.unref();
  app.addHook("onClose", async () => clearInterval(purging));
  const stopFolding = startListChangeFolding(database.db, FOLD_ALL_EVERY_MS, (err) =>
    app.log.warn({ err }, "folding the candidate lists' changes failed"),
  );
  app.addHook("onClose", async () => stopFolding());
}

/**
 * Everything under /api/v1, behind the bearer token: strict input and one 422 for validation, the
 * org routes, the hosted modules' routes, and `/org/{org_id}/…` also behind the tenant guard.
 */
async function registerApi(app: App, deps: RecruitingDeps, ctx: RecruitingContext): Promise<void> {
  await app.register(
    async (api) => {
      // Validation errors are collected (not thrown) so strict-input can merge its own findings into one 422.
      api.addHook("onRoute", (route) => {
        route.attachValidation = true;
        const strictInput = strictInputFor(route.schema);
        if (strictInput) appendRouteHook(route as RouteOptions, "preValidation", strictInput);
      });
      protectWithBearer(api, deps.verify);
      api.addHook("preHandler", reportValidation);
      await api.register(orgRoutes);
      for (const routes of (deps.modules ?? []).flatMap((m) => m.routes)) await api.register(routes);
      await api.register(async (org) => {
        org.addHook("onRequest", tenantGuard);
        for (const routes of ORG_ROUTE_GROUPS) await org.register(routes, { ctx });
        for (const routes of (deps.modules ?? []).flatMap((m) => m.orgRoutes)) await org.register(routes);
      });
    },
    { prefix: API_PREFIX },
  );
}

/**
 * The recruiting API as a Fastify app (not listening). Everything under /api/v1 needs a bearer
 * token; `/org/{org_id}/...` additionally needs the token's org to be the path's. The OpenAPI
 * document (/api/v1/openapi.json), /docs and /healthz are public.
 */
export async function buildRecruitingApp(deps: RecruitingDeps): Promise<App> {
  const app = createApp({
    service: "api",
    logger: deps.logger,
    readiness: [{ name: "storage", check: () => deps.database.ping() }],
    bodyLimit: deps.config.BODY_LIMIT_BYTES,
    requestTimeoutMs: deps.config.REQUEST_TIMEOUT_MS,
    trustProxy: deps.config.TRUST_PROXY,
    storableInput: true,
  });
  await registerProtection(app, {
    perMinute: deps.config.RATE_LIMIT_PER_MINUTE,
    redisUrl: deps.config.REDIS_URL,
    by: "principal",
    perOrganisationPerMinute: deps.config.RATE_LIMIT_ORG_PER_MINUTE,
    name: "api",
    corsOrigins: corsOriginsOf(deps.config),
  });
  await registerOpenApi(app, {
    title: "Hirebridge recruiting API",
    description:
      "Positions, their candidates and each candidate's interview, per organization. Every endpoint needs `Authorization: Bearer <access token>`; `/org/{org_id}/...` serves only tokens whose `org_id` claim equals the path's. Read-only fields (`id`, `created_at`, `updated_at`, and the path-owned `organization_id`, `position_id`) are accepted in bodies and ignored; unknown fields are refused with 422.",
    prefix: API_PREFIX,
    oauth: docsOAuth(deps.config),
  });
  const { ownBase, configuredBase } = interviewBasesOf(deps.config);
  const ctx = recruitingContextOf(deps, configuredBase ?? ownBase);
  startUpkeep(app, deps.database);
  // The candidate's side of interview_link: a page here, or a redirect to the configured front end.
  await app.register(interviewPageRoutes, {
    ctx,
    ownBase,
    redirectBase: configuredBase && configuredBase !== ownBase ? configuredBase : null,
  });
  // The recruiter's side of an assessment order's result_url (docs/assessments.md).
  await app.register(resultsPageRoutes, { ctx });
  await registerApi(app, deps, ctx);
  return app;
}
