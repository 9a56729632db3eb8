import type { FastifyReply } from "fastify";
import type { Logger } from "pino";
import { type BaseConfig, CONSOLE_CLIENT_ID, serviceUrls, type ServiceUrls } from "../../shared/config.js";
import { createApp, type App } from "../../shared/http/create-app.js";
import { registerProtection } from "../../shared/http/protection.js";
import { defaultConsoleDist, loadConsoleAssets, type Asset } from "./assets.js";

export type ConsoleAppOptions = {
  config: BaseConfig;
  logger: Logger;
  urls?: ServiceUrls;
  /** The built console (default `<package>/console/dist`). */
  distDir?: string;
};

/** What the page needs to know, served as `/config.json`: where to sign in and which APIs to call. */
export function consoleSettings(urls: ServiceUrls) {
  return {
    authUrl: urls.issuer,
    clientId: CONSOLE_CLIENT_ID,
    redirectUri: `${urls.console}/auth/callback`,
    apiUrl: urls.api,
    proxyUrl: urls.proxy,
  };
}
export type ConsoleSettings = ReturnType<typeof consoleSettings>;

const origin = (url: string) => new URL(url).origin;

/**
 * The page's Content-Security-Policy: scripts, styles and images only from the console itself (no
 * inline code, no CDN), calls only to the token service and the two APIs, frames only from the
 * upstream's connection flow (the sandbox by default; any https origin for a real upstream, whose
 * connect page lives on its own host).
 */
export function consoleCsp(config: BaseConfig, urls: ServiceUrls): string {
  const connect = [...new Set([origin(urls.issuer), origin(urls.api), origin(urls.proxy)])].join(" ");
  const frames = config.UPSTREAM_BASE_URL ? "https:" : urls.sandboxOrigin;
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src 'self' ${connect}`,
    `frame-src ${frames}`,
    "form-action 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    "object-src 'none'",
  ].join("; ");
}

/**
 * The operator console: the built single-page app (hashed assets cached for a year, the page itself
 * revalidated every time) and `/config.json`. Every path that is not an asset answers the page, so
 * the app's own routes (`/integrations/…`, `/auth/callback`) load it.
 */
export async function buildConsoleApp(opts: ConsoleAppOptions): Promise<App> {
  const { config } = opts;
  const urls = opts.urls ?? serviceUrls(config);
  const { index, assets } = loadConsoleAssets(opts.distDir ?? defaultConsoleDist());
  const csp = consoleCsp(config, urls);
  const settings = JSON.stringify(consoleSettings(urls));

  const app = createApp({
    service: "console",
    logger: opts.logger,
    bodyLimit: config.BODY_LIMIT_BYTES,
    requestTimeoutMs: config.REQUEST_TIMEOUT_MS,
    trustProxy: config.TRUST_PROXY,
  });
  await registerProtection(app, { perMinute: 0, by: "address", name: "console" });

  const send = (reply: FastifyReply, asset: Asset, cacheControl: string, ifNoneMatch: string | undefined) => {
    reply.header("etag", asset.etag).header("cache-control", cacheControl);
    if (ifNoneMatch === asset.etag) return reply.status(304).send();
    return reply.type(asset.type).send(asset.body);
  };

  app.get("/config.json", { schema: { hide: true } }, async (_request, reply) =>
    reply.header("cache-control", "no-cache").type("application/json").send(settings),
  );
  app.get<{ Params: { file: string } }>("/assets/:file", { schema: { hide: true } }, async (request, reply) => {
    const asset = assets.get(request.params.file);
    if (!asset) return reply.status(404).send({ detail: "Not Found" });
    // Hashed names: a changed file is a new name, so a copy never needs checking again.
    return send(reply, asset, "public, max-age=31536000, immutable", request.headers["if-none-match"]);
  });
  // Every other GET is a page of the app (its router reads the path); other methods keep the shared 404.
  app.get("/*", { schema: { hide: true } }, async (request, reply) => {
    reply.header("content-security-policy", csp).header("x-frame-options", "DENY");
    return send(reply, index, "no-cache", request.headers["if-none-match"]);
  });
  return app;
}
