import type { FastifyInstance } from "fastify";
import type { Logger } from "pino";
import type { KeyRotationResult } from "../../contracts/token.js";
import { serviceUrls, type ServiceUrls } from "../../shared/config.js";
import type { TokenConfig } from "./config.js";
import type { Database } from "../../shared/db/database.js";
import { createApp, type App } from "../../shared/http/create-app.js";
import { registerProtection } from "../../shared/http/protection.js";
import { registerOpenApi } from "../../shared/http/openapi.js";
import { utf8Text } from "../../shared/http/storable-input.js";
import { adminAuth } from "./admin/admin-auth.js";
import { keysRoutes } from "./admin/keys.routes.js";
import { usersRoutes } from "./admin/users.routes.js";
import { bootstrap } from "./bootstrap.js";
import { purgeExpired, rotateKeys } from "./maintenance.js";
import { loginRoutes } from "./oidc/login.routes.js";
import { oidcRoutes } from "./oidc/oidc.routes.js";
import { tokenRoutes } from "./oidc/token.routes.js";
import { createTokenContext, type TokenContext } from "./token-context.js";
import { installAdminErrorHandler, installOAuthErrorHandler } from "./token-errors.js";

export type TokenAppDeps = {
  config: TokenConfig;
  logger: Logger;
  /** Migrated storage (users, sessions, keys). */
  database: Database;
  urls?: ServiceUrls;
  /** Clock in ms (default Date.now): tests move it to expire tokens, sessions and locks. */
  now?: () => number;
};

export type TokenApp = {
  app: App;
  context: TokenContext;
  /** Makes a new signing key active; old ones stay published until their tokens expire. */
  rotateKeys(): Promise<KeyRotationResult>;
  /** Deletes dead sessions and expired retired keys. */
  purgeExpired(): Promise<{ sessions: number; keys: number }>;
};

/** The request headers Keycloak's CORS allows on its OpenID Connect endpoints (its `Cors.DEFAULT_ALLOW_HEADERS` and Authorization). */
const CORS_ALLOW_HEADERS =
  "Origin, Accept, X-Requested-With, Content-Type, Access-Control-Request-Method, Access-Control-Request-Headers, Authorization";

/**
 * Browser clients (the SDK) call these endpoints cross-origin. They use no cookies, so echoing the
 * caller's origin without credentials exposes nothing a direct request would not.
 */
function allowCors(app: FastifyInstance): void {
  app.addHook("onRequest", async (request, reply) => {
    const origin = request.headers.origin;
    if (origin) reply.header("access-control-allow-origin", origin).header("vary", "Origin");
  });
  // Preflight for what is not a simple request: userinfo (Authorization), and token requests from
  // pages that add headers, such as Swagger UI's Authorize (X-Requested-With, Accept, Basic client auth).
  app.options("/*", { schema: { hide: true } }, async (_request, reply) =>
    reply
      .status(204)
      .header("access-control-allow-methods", "GET, POST, OPTIONS")
      .header("access-control-allow-headers", CORS_ALLOW_HEADERS)
      .header("access-control-max-age", "600")
      .send(),
  );
}

/**
 * A form body (RFC 6749 requests) as an object: one value per name as a string, a repeated name as
 * the list of its values (refused later as Keycloak refuses it). The bytes must be UTF-8.
 */
function parseForm(text: string): Record<string, string | string[]> {
  const form: Record<string, string | string[]> = Object.create(null);
  for (const [name, value] of new URLSearchParams(text)) {
    const seen = form[name];
    form[name] = seen === undefined ? value : [...[seen].flat(), value];
  }
  return form;
}

/**
 * The embedded identity provider: Keycloak's OpenID Connect endpoints under
 * `/realms/{realm}` and the admin API subset under `/admin/realms/{realm}`, each scope with its
 * own error style. Creates the first signing and refresh token keys, the admin and the demo user when missing.
 */
export async function buildTokenApp(deps: TokenAppDeps): Promise<TokenApp> {
  const urls = deps.urls ?? serviceUrls(deps.config);
  const context = createTokenContext({ ...deps, authOrigin: urls.authOrigin, consoleRedirectUri: `${urls.console}/auth/callback` });
  await bootstrap(context);

  const app = createApp({
    service: "token",
    logger: deps.logger,
    readiness: [{ name: "storage", check: () => deps.database.ping() }],
    errorHandler: false,
    bodyLimit: deps.config.BODY_LIMIT_BYTES,
    requestTimeoutMs: deps.config.REQUEST_TIMEOUT_MS,
    trustProxy: deps.config.TRUST_PROXY,
    storableInput: true,
  });
  await registerProtection(app, {
    perMinute: deps.config.TOKEN_RATE_LIMIT_PER_MINUTE,
    redisUrl: deps.config.REDIS_URL,
    by: "address",
    name: "token",
  });
  await registerOpenApi(app, {
    title: "Hirebridge token service",
    description: "Keycloak-compatible OpenID Connect token endpoint, JWKS, discovery, logout, userinfo and admin user API.",
    prefix: "",
  });
  app.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "buffer" }, (_request, body, done) => {
    try {
      done(null, parseForm(utf8Text(body as Buffer)));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
  installOAuthErrorHandler(app);
  app.setNotFoundHandler((_request, reply) => {
    reply.status(404).send({ error: "Unable to find matching target resource method" });
  });

  await app.register(
    async (oidc) => {
      // Token requests are form-encoded (RFC 6749); a JSON body is refused rather than half-read.
      oidc.removeContentTypeParser("application/json");
      // A POST without any body is a request with no parameters: answer which one is missing.
      oidc.addHook("preValidation", async (request) => {
        request.body ??= {};
      });
      allowCors(oidc);
      await oidc.register(tokenRoutes(context));
      await oidc.register(oidcRoutes(context));
      await oidc.register(loginRoutes(context));
    },
    { prefix: "/realms/:realm" },
  );
  await app.register(
    async (admin) => {
      installAdminErrorHandler(admin);
      admin.addHook("onRequest", adminAuth(context));
      await admin.register(usersRoutes(context, urls.authOrigin));
      await admin.register(keysRoutes(context));
    },
    { prefix: "/admin/realms/:realm" },
  );
  return { app, context, rotateKeys: () => rotateKeys(context), purgeExpired: () => purgeExpired(context) };
}
