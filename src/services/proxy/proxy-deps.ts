import type { Logger } from "pino";
import type { ProxyConfig } from "./config.js";
import type { Database } from "../../shared/db/database.js";
import type { App } from "../../shared/http/create-app.js";
import type { ResponseCache } from "./cache/response-cache.js";
import type { IntegrationDirectory } from "./integrations/integration-directory.js";
import type { UpstreamClient } from "../../shared/upstream/upstream-client.js";
import type { JobQueue } from "../../shared/jobs/queue.js";

/** What every route plugin of the proxy receives. */
export type ProxyDeps = {
  config: ProxyConfig;
  database: Database;
  logger: Logger;
  upstream: UpstreamClient;
  cache: ResponseCache;
  integrations: IntegrationDirectory;
};

/** A group of routes, registered from the explicit lists in app.ts. */
export type ProxyRoutes = (app: App, opts: { deps: ProxyDeps }) => Promise<void>;

/**
 * What a hosted module is built from: the proxy's parts, the job queue, and whether this process
 * runs workers; `config` holds the module's own variables too (`C`, src/runtime/config.ts).
 */
export type ModuleHost<C extends ProxyConfig = ProxyConfig> = Omit<ProxyDeps, "cache" | "config"> & {
  config: C;
  queue: JobQueue;
  workers: boolean;
};

/**
 * A module the proxy hosts on its port (the sync module; src/runtime/wiring.ts hands it in, so the
 * proxy never imports it): its routes behind the bearer JWT, its public routes, and what to stop
 * when the app closes (before the queue, the upstream client and the cache close).
 */
export type HostedModule<C extends ProxyConfig = ProxyConfig> = (host: ModuleHost<C>) => Promise<{
  protectedRoutes: ((app: App) => Promise<void>)[];
  publicRoutes: ((app: App) => Promise<void>)[];
  /** Told of each proxied call the upstream failed (never of a success), for the integration's trail. */
  onUpstreamFailure?: (failure: ProxiedCallFailure) => void;
  close(): Promise<void>;
}>;

/** A caller's request the upstream failed: 5xx after retries, no answer in time, unreachable, the key refused. */
export type ProxiedCallFailure = {
  integrationId: string;
  /** The caller's organisation: the failure belongs to the integration's trail only when it owns it. */
  orgId: string;
  /** The proxy's operation without ids, e.g. `GET /ats/jobs`. */
  operation: string;
  status: number | null;
  error: string;
  requestId: string;
};

/** The spec's tools cache lifetime: 5 hours. */
export const TOOLS_CACHE_TTL_SECONDS = 5 * 60 * 60;
