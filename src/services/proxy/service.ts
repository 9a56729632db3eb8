import { verifierFromConfig } from "../../shared/auth/verify-jwt.js";
import { bannerLine, type ServiceFactory } from "../../shared/service.js";
import { buildProxyApp } from "./app.js";
import type { ProxyConfig } from "./config.js";
import type { HostedModule } from "./proxy-deps.js";

/**
 * The integration proxy as the launcher starts it: the shared verifier, storage, upstream and cache
 * from the config, hosting `modules` (src/runtime/wiring.ts passes the sync module).
 */
export const createProxyService =
  <C extends ProxyConfig>(modules: HostedModule<C>[]): ServiceFactory<C> =>
  async ({ config, urls, logger, database, jobQueue }) => {
    if (!database) throw new Error("the integration proxy needs storage (its integrations table)");
    const verify = verifierFromConfig(config, urls.issuer);
    const app = await buildProxyApp({ config, database, logger, verify, queue: await jobQueue(), modules });
    const docs = urls.proxy.replace(/\/api\/v1$/, "/docs");
    return {
      name: "proxy",
      app,
      port: config.PROXY_PORT,
      banner: () => [
        bannerLine("Integration proxy", `${urls.proxy}  (OpenAPI ${urls.proxy}/openapi.json, docs ${docs})`),
        bannerLine("  upstream", `${urls.upstream}  (cache ${config.REDIS_URL ? "Redis" : "in-process"})`),
      ],
    };
  };
