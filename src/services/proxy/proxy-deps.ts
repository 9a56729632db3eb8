import type { Logger } from "pino";
import type { Config } from "../../shared/config.js";
import type { Database } from "../../shared/db/database.js";
import type { App } from "../../shared/http/create-app.js";
import type { ResponseCache } from "./cache/response-cache.js";
import type { IntegrationDirectory } from "./integrations/integration-directory.js";
import type { UpstreamClient } from "../../shared/upstream/upstream-client.js";
import type { ProxySync } from "../sync/sync-jobs.js";

/** What every route plugin of the proxy receives (the webhook receivers and sync trigger included). */
export type ProxyDeps = {
  config: Config;
  database: Database;
  logger: Logger;
  upstream: UpstreamClient;
  cache: ResponseCache;
  integrations: IntegrationDirectory;
  /** The job queue, sync engine and write-back (webhook receivers, sync trigger, sync runs). */
  sync: ProxySync;
};

/** A group of routes, registered from the explicit lists in app.ts. */
export type ProxyRoutes = (app: App, opts: { deps: ProxyDeps }) => Promise<void>;

/** The spec's tools cache lifetime: 5 hours. */
export const TOOLS_CACHE_TTL_SECONDS = 5 * 60 * 60;
