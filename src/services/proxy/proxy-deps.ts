import type { Logger } from "pino";
import type { Config } from "../../shared/config.js";
import type { Database } from "../../shared/db/database.js";
import type { App } from "../../shared/http/create-app.js";
import type { ResponseCache } from "./cache/response-cache.js";
import type { IntegrationDirectory } from "./integrations/integration-directory.js";
import type { UpstreamClient } from "../../shared/upstream/upstream-client.js";
import type { JobQueue } from "../../shared/jobs/queue.js";

/** What every route plugin of the proxy receives. */
export type ProxyDeps = {
  config: Config;
  database: Database;
  logger: Logger;
  upstream: UpstreamClient;
  cache: ResponseCache;
  integrations: IntegrationDirectory;
};

/** A group of routes, registered from the explicit lists in app.ts. */
export type ProxyRoutes = (app: App, opts: { deps: ProxyDeps }) => Promise<void>;

/** What a hosted module is built from: the proxy's parts, the job queue, and whether this process runs workers. */
export type ModuleHost = Omit<ProxyDeps, "cache"> & { queue: JobQueue; workers: boolean };

/**
 * A module the proxy hosts on its port (the sync module; src/runtime/wiring.ts hands it in, so the
 * proxy never imports it): its routes behind the bearer JWT, its public routes, and what to stop
 * when the app closes (before the queue, the upstream client and the cache close).
 */
export type HostedModule = (host: ModuleHost) => Promise<{
  protectedRoutes: ((app: App) => Promise<void>)[];
  publicRoutes: ((app: App) => Promise<void>)[];
  close(): Promise<void>;
}>;

/** The spec's tools cache lifetime: 5 hours. */
export const TOOLS_CACHE_TTL_SECONDS = 5 * 60 * 60;
