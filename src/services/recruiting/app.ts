import type { RouteOptions } from "fastify";
import type { Logger } from "pino";
import { bearerAuth } from "../../shared/auth/bearer.plugin.js";
import type { Verify } from "../../shared/auth/verify-jwt.js";
import { corsOriginsOf, serviceUrls, type Config } from "../../shared/config.js";
import { createCandidateIntake } from "./candidates/candidate-intake.js";
import type { Database } from "../../shared/db/database.js";
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
import { candidateRoutes } from "./candidates/candidates.routes.js";
import type { RecruitingContext } from "./context.js";
import { reportValidation, strictInputFor } from "./http/strict-input.js";
import { interviewPageRoutes } from "./interviews/interview-page.routes.js";
import { interviewRoutes } from "./interviews/interviews.routes.js";
import type { RecruitingHooks } from "./interviews/interviews.service.js";
import { orgRoutes } from "./org/org.routes.js";
import { tenantGuard } from "./org/tenant-guard.js";
import { positionRoutes } from "./positions/positions.routes.js";

export type RecruitingDeps = {
  config: Config;
  database: Database;
  logger: Logger;
  /** Bearer verification (the token service's or Keycloak's JWKS); tests pass the test identity's. */
  verify: Verify;
  /** Extension points for the sync engine's write-back. */
  hooks?: RecruitingHooks;
  /** Budget of the candidate list answers kept in memory (0 keeps none); tests make it small. */
  candidateListCacheBytes?: number;
};

export const API_PREFIX = "/api/v1";

/**
 * The recruiting API as a Fastify app (not listening). Everything under /api/v1 needs a bearer
 * token; `/org/{org_id}/...` additionally needs the token's org to be the path's. The OpenAPI
 * document (/api/v1/openapi.json), /docs and /healthz are public.
 */
export async function buildRecruitingApp(deps: RecruitingDeps): Promise<App> {
  const app = createApp({
    service: "api",
    logger: deps.logger,
    ready: () => deps.database.ping(),
    bodyLimit: deps.config.BODY_LIMIT_BYTES,
    requestTimeoutMs: deps.config.REQUEST_TIMEOUT_MS,
    trustProxy: deps.config.TRUST_PROXY,
    storableInput: true,
  });
  await registerProtection(app, {
    perMinute: deps.config.RATE_LIMIT_PER_MINUTE,
    redisUrl: deps.config.REDIS_URL,
    by: "principal",
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
  const ownBase = `${serviceUrls(deps.config).api.replace(/\/api\/v1$/, "")}/interview`;
  const configuredBase = deps.config.INTERVIEW_BASE_URL?.replace(/\/+$/, "");
  const ctx: RecruitingContext = {
    db: deps.database.db,
    interviewBaseUrl: configuredBase ?? ownBase,
    hooks: deps.hooks ?? {},
    candidateLists: new CandidateListCache(deps.candidateListCacheBytes ?? CANDIDATE_LIST_CACHE_BYTES),
    candidateIntake: createCandidateIntake(deps.database),
  };
  const stopFolding = startListChangeFolding(deps.database.db, FOLD_ALL_EVERY_MS, (err) =>
    app.log.warn({ err }, "folding the candidate lists' changes failed"),
  );
  app.addHook("onClose", async () => stopFolding());
  // The candidate's side of interview_link: a page here, or a redirect to the configured front end.
  await app.register(interviewPageRoutes, {
    ctx,
    ownBase,
    redirectBase: configuredBase && configuredBase !== ownBase ? configuredBase : null,
  });

  await app.register(
    async (api) => {
      // Validation errors are collected (not thrown) so strict-input can merge its own findings into one 422.
      api.addHook("onRoute", (route) => {
        route.attachValidation = true;
        const strictInput = strictInputFor(route.schema);
        if (strictInput) appendRouteHook(route as RouteOptions, "preValidation", strictInput);
      });
      api.addHook("onRequest", bearerAuth(deps.verify));
      api.addHook("preHandler", reportValidation);
      await api.register(orgRoutes);
      await api.register(async (org) => {
        org.addHook("onRequest", tenantGuard);
        for (const routes of [positionRoutes, candidateRoutes, interviewRoutes]) await org.register(routes, { ctx });
      });
    },
    { prefix: API_PREFIX },
  );
  return app;
}
