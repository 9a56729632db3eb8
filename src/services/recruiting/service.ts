import { verifierFromConfig } from "../../shared/auth/verify-jwt.js";
import type { BaseConfig } from "../../shared/config.js";
import { bannerLine, type ServiceContext, type ServiceFactory } from "../../shared/service.js";
import type { Db, Queryable } from "../../shared/db/database.js";
import type { JobQueue } from "../../shared/jobs/queue.js";
import type { AuditLog } from "../../shared/ports/audit-log.js";
import type { EventsOut } from "../../shared/ports/events-out.js";
import type { IntegrationOwnership } from "../../shared/ports/integration-ownership.js";
import { buildRecruitingApp, type HostedRoutes } from "./app.js";
import type { RecruitingHooks } from "./interviews/interviews.service.js";

/**
 * What the process adds to the recruiting API (src/runtime/wiring.ts): outbound webhooks' outbox and
 * routes, and the integrations' owners its upstream links are checked against.
 */
export type RecruitingExtensions = {
  events: EventsOut<Queryable>;
  modules: HostedRoutes[];
  bannerLines: string[];
  close(): Promise<void>;
  /** Which integrations belong to which organisation (the proxy's integrations table). */
  ownership: IntegrationOwnership;
  /** The organisations' audit log the API records its changes in. */
  audit?: AuditLog<Queryable, Db>;
};

/**
 * `hirebridge serve api`: the recruiting API on API_PORT, trusting the configured issuer. `hooksFor`
 * gives the hooks over the process's job queue (src/runtime/wiring.ts: an interview that ends
 * enqueues its ATS write-back in the same transaction; the proxy process runs the workers).
 */
export const createRecruitingService =
  <C extends BaseConfig>(
    hooksFor: (queue: JobQueue) => RecruitingHooks,
    extensionsFor?: (ctx: ServiceContext<C>) => Promise<RecruitingExtensions>,
  ): ServiceFactory<C> =>
  async (ctx) => {
    const { config, urls, logger, database, jobQueue } = ctx;
    if (!database) throw new Error("the recruiting API needs storage");
    const verify = verifierFromConfig(config, urls.issuer);
    const hooks = hooksFor(await jobQueue());
    const ext = await extensionsFor?.(ctx);
    const app = await buildRecruitingApp({
      config,
      database,
      logger,
      verify,
      hooks,
      ...(ext ? { events: ext.events, modules: ext.modules, ownership: ext.ownership } : {}),
      ...(ext?.audit ? { audit: ext.audit } : {}),
    });
    const origin = urls.api.replace(/\/api\/v1$/, "");
    return {
      name: "api",
      app,
      port: config.API_PORT,
      banner: () => [
        bannerLine("Recruiting API", `${urls.api}  (OpenAPI ${urls.api}/openapi.json, docs ${origin}/docs)`),
        ...(ext?.bannerLines ?? []),
      ],
      close: async () => ext?.close(),
    };
  };
