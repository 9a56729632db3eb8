import type { Logger } from "pino";
import { protectWithBearer } from "../../shared/auth/bearer.plugin.js";
import type { Verify } from "../../shared/auth/verify-jwt.js";
import { corsOriginsOf, serviceUrls } from "../../shared/config.js";
import type { ProxyConfig } from "./config.js";
import type { Database } from "../../shared/db/database.js";
import { createApp, type App } from "../../shared/http/create-app.js";
import { registerProtection } from "../../shared/http/protection.js";
import { guardOwnedIntegrations } from "../../shared/http/owned-integration.js";
import { docsOAuth, registerOpenApi } from "../../shared/http/openapi.js";
import type { Cache } from "./cache/cache.js";
import { MemoryCache } from "./cache/memory-cache.js";
import { ResponseCache } from "./cache/response-cache.js";
import { IntegrationDirectory } from "./integrations/integration-directory.js";
import type { HostedModule, ProxyDeps, ProxyRoutes } from "./proxy-deps.js";
import { assessmentRoutes } from "./routes/assessment.routes.js";
import { atsRoutes } from "./routes/ats.routes.js";
import { connectRoutes } from "./routes/connect.routes.js";
import { generalRoutes } from "./routes/general.routes.js";
import { integrationsRoutes } from "./routes/integrations.routes.js";
import { reportUpstreamFailures } from "./routes/failure-report.js";
import { createUpstreamClient, type UpstreamClient } from "../../shared/upstream/upstream-client.js";
import { openJobQueue, QUEUES, type JobQueue } from "../../shared/jobs/queue.js";

declare module "fastify" {
  interface FastifyInstance {
    /** The proxy's dependencies (tests and the webhook receivers reach the directory and cache through it). */
    proxy?: ProxyDeps;
  }
}

/**
 * Route groups behind the bearer JWT, under /api/v1. The hosted modules' groups follow (the sync
 * module's bulk-sync trigger and sync runs), then their public ones: the six upstream webhook
 * receivers, authenticated by the upstream's signature instead, which record, delete and update
 * integrations through `deps.integrations` (which evicts its caches).
 */
const PROTECTED_ROUTES: ProxyRoutes[] = [generalRoutes, integrationsRoutes, atsRoutes, assessmentRoutes, connectRoutes];

/** `C`: the proxy's configuration and what its hosted modules read besides (src/runtime/config.ts). */
export type ProxyAppOptions<C extends ProxyConfig = ProxyConfig> = {
  config: C;
  database: Database;
  logger: Logger;
  verify: Verify;
  /** Injected for tests; otherwise built from UPSTREAM_* and closed with the app. */
  upstream?: UpstreamClient;
  /** Injected for tests; otherwise Redis when REDIS_URL is set, else in-process; closed with the app. */
  cache?: Cache;
  /** The durable job queue; shared with the other services of the process, else opened here and closed with the app. */
  queue?: JobQueue;
  /** Run the job workers in this process (default: WORKERS). */
  workers?: boolean;
  /** Modules hosted on the proxy's port (the sync module), handed in by src/runtime/wiring.ts. */
  modules?: HostedModule<C>[];
};

/** The upstream client as the configuration sets it up. */
function upstreamClientOf(config: ProxyConfig, logger: Logger) {
  return createUpstreamClient({
    baseUrl: serviceUrls(config).upstream,
    apiKey: config.UPSTREAM_API_KEY,
    timeoutMs: config.UPSTREAM_TIMEOUT_MS,
    retry: {
      retries: config.UPSTREAM_RETRIES,
      baseDelayMs: config.UPSTREAM_RETRY_BASE_MS,
      maxTotalWaitMs: config.UPSTREAM_RETRY_MAX_WAIT_MS,
    },
    logger,
  });
}

/** The documentation and the routes below /api/v1: the proxy's and its modules' (behind the bearer check), then the modules' public ones. */
async function registerApi<C extends ProxyConfig>(
  app: App,
  opts: ProxyAppOptions<C>,
  deps: ProxyDeps,
  modules: Awaited<ReturnType<HostedModule<C>>>[],
): Promise<void> {
  const { config } = opts;
  await registerOpenApi(app, {
    title: "Hirebridge integration proxy",
    description:
      "Bearer-JWT-protected proxy in front of the upstream unified ATS API: general operations, integration management, unified ATS reads and writes, and connection links. Success bodies are the upstream's JSON, passed through unchanged.",
    prefix: "/api/v1",
    oauth: docsOAuth(config),
  });
  await app.register(
    async (api) => {
      protectWithBearer(api, opts.verify, "proxy");
      guardOwnedIntegrations(api, deps.integrations);
      reportUpstreamFailures(
        api,
        modules.flatMap((m) => (m.onUpstreamFailure ? [m.onUpstreamFailure] : [])),
      );
      for (const routes of PROTECTED_ROUTES) await api.register(routes, { deps });
      for (const routes of modules.flatMap((m) => m.protectedRoutes)) await api.register(routes);
    },
    { prefix: "/api/v1" },
  );
  await app.register(
    async (api) => {
      for (const routes of modules.flatMap((m) => m.publicRoutes)) await api.register(routes);
    },
    { prefix: "/api/v1" },
  );
}

export async function buildProxyApp<C extends ProxyConfig>(opts: ProxyAppOptions<C>): Promise<App> {
  const { config, database, logger } = opts;
  // Ready when storage answers and the job queue can reach its tables (its own pool on Postgres);
  // the cache is reported, not required: without it the proxy serves from the upstream.
  let queueReady: (() => Promise<void>) | undefined;
  let cacheReady: (() => Promise<void>) | undefined;
  const app = createApp({
    service: "proxy",
    logger,
    readiness: [
      { name: "storage", check: () => database.ping() },
      { name: "queue", check: async () => queueReady?.() },
      { name: "cache", check: async () => cacheReady?.(), optional: true },
    ],
    bodyLimit: config.BODY_LIMIT_BYTES,
    requestTimeoutMs: config.REQUEST_TIMEOUT_MS,
    trustProxy: config.TRUST_PROXY,
    storableInput: true,
  });
  await registerProtection(app, {
    perMinute: config.RATE_LIMIT_PER_MINUTE,
    redisUrl: config.REDIS_URL,
    by: "principal",
    perOrganisationPerMinute: config.RATE_LIMIT_ORG_PER_MINUTE,
    name: "proxy",
    corsOrigins: corsOriginsOf(config),
  });
  const upstream = opts.upstream ?? upstreamClientOf(config, logger);
  // ioredis is loaded only when REDIS_URL asks for it.
  const redisUrl = config.REDIS_URL;
  const store: Cache =
    opts.cache ?? (redisUrl ? new (await import("./cache/redis-cache.js")).RedisCache({ url: redisUrl, logger }) : new MemoryCache());
  const cache = new ResponseCache(store);
  cacheReady = async () => store.ping?.();
  // Owner and integration lookups answer callers (and are one indexed read for the workers too):
  // they run on the request path's pool, bounded by DATABASE_REQUEST_STATEMENT_TIMEOUT_MS.
  const integrations = new IntegrationDirectory({
    db: database.requestDb,
    cache,
    upstream,
    detailsTtlSeconds: config.INTEGRATION_CACHE_TTL_SECONDS,
    logger,
  });
  const queue = opts.queue ?? (await openJobQueue(database, logger, { schedule: opts.workers ?? config.WORKERS }));
  queueReady = async () => {
    if (!(await queue.boss.getQueue(QUEUES.sync))) throw new Error("job queue tables are not reachable");
  };
  const deps: ProxyDeps = { config, database: { ...database, db: database.requestDb }, logger, upstream, cache, integrations };
  const host = { config, database, logger, upstream, integrations, queue, workers: opts.workers ?? config.WORKERS };
  const modules: Awaited<ReturnType<HostedModule<C>>>[] = [];
  for (const start of opts.modules ?? []) modules.push(await start(host));
  app.decorate("proxy", deps);
  app.addHook("onClose", async () => {
    // Workers stop first (in-flight jobs finish) so nothing uses the upstream client or storage after.
    for (const m of modules) await m.close();
    if (!opts.queue) await queue.stop();
    if (!opts.upstream) await upstream.close();
    if (!opts.cache) await store.close();
  });

  await registerApi(app, opts, deps, modules);
  return app;
}
