import { bannerLine, bannerSecret, type ServiceFactory } from "../../shared/service.js";
import { buildTokenApp } from "./app.js";
import type { TokenConfig } from "./config.js";
import { DEMO_USERNAME } from "./bootstrap.js";

/** How often dead sessions and expired retired keys are purged. */
const PURGE_INTERVAL_MS = 10 * 60 * 1000;

/** `hirebridge serve token`: the embedded identity provider on AUTH_PORT. */
export const createTokenService: ServiceFactory<TokenConfig> = async ({ config, urls, logger, database }) => {
  if (!database) throw new Error("the token service needs storage");
  const token = await buildTokenApp({ config, logger, database, urls });
  const timer = setInterval(() => {
    token.purgeExpired().then(
      (removed) => (removed.sessions || removed.keys) && logger.debug(removed, "purged expired sessions and keys"),
      (err: unknown) => logger.warn({ err }, "purging expired sessions failed"),
    );
  }, PURGE_INTERVAL_MS);
  timer.unref();
  return {
    name: "token",
    app: token.app,
    port: config.AUTH_PORT,
    banner: () => [
      bannerLine(
        "Token service",
        `${urls.authUrl}  (admin: admin / ${bannerSecret(config.ADMIN_PASSWORD, "admin-password", "ADMIN_PASSWORD")} in realm master)`,
      ),
      bannerLine(
        "Demo login",
        `${DEMO_USERNAME} / ${bannerSecret(config.DEMO_PASSWORD, "demo-password", "DEMO_PASSWORD")}  (client ${config.AUTH_CLIENT_ID}, org ${config.DEMO_ORG_ID})`,
      ),
      bannerLine(
        "Get a token",
        `curl -s -X POST ${urls.authUrl}/protocol/openid-connect/token -d grant_type=password -d client_id=${config.AUTH_CLIENT_ID} -d username=${DEMO_USERNAME} -d password=${config.DEMO_PASSWORD === "demo-password" ? "demo-password" : '"$DEMO_PASSWORD"'}`,
      ),
    ],
    close: async () => clearInterval(timer),
  };
};
