import { once } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import cors from "@fastify/cors";
import rateLimit from "@fastify/rate-limit";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { App } from "./create-app.js";

export type ProtectionOptions = {
  /** Requests per minute per caller; 0 turns the limit off. */
  perMinute: number;
  /** Redis for limits shared by several instances; in-process otherwise. */
  redisUrl?: string | undefined;
  /**
   * Who "the caller" is. The resource servers count per verified token subject (the hook runs after
   * bearer auth), falling back to the client address; the token endpoint counts per address.
   */
  by: "principal" | "address";
  /**
   * Requests per minute per organisation (the verified token's org claim), over all its users and
   * service accounts together, besides each caller's own `perMinute`: one customer's script cannot
   * take an instance from the others. 0 or absent: off. Only with `by: "principal"`.
   */
  perOrganisationPerMinute?: number | undefined;
  /** Redis key prefix, so services sharing a Redis keep separate counts. */
  name: string;
  /** CORS for browser callers (the SDK): `*` or a comma-separated list of origins; absent: no CORS headers. */
  corsOrigins?: string | undefined;
};

/**
 * Security headers of a JSON API: helmet's defaults without the policies for documents and their
 * subresources (CSP, COEP, CORP): answers are JSON, the /docs page sets its own CSP, and other
 * origins (the SDK in a browser) must be able to read answers. The set is static, so it is built
 * once and added in one step; helmet's per-request middleware chain cost about a tenth of a proxied
 * request's CPU for the same ten headers.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "cross-origin-opener-policy": "same-origin",
  "origin-agent-cluster": "?1",
  "referrer-policy": "no-referrer",
  "strict-transport-security": "max-age=31536000; includeSubDomains",
  "x-content-type-options": "nosniff",
  "x-dns-prefetch-control": "off",
  "x-download-options": "noopen",
  "x-frame-options": "SAMEORIGIN",
  "x-permitted-cross-domain-policies": "none",
  "x-xss-protection": "0",
});

/** The headers a browser caller may read (Access-Control-Expose-Headers). */
export const EXPOSED_HEADERS = "x-request-id, retry-after, x-cache, location";

/**
 * CORS for browser callers. Preflights (OPTIONS) are @fastify/cors's, in a scope of their own: its
 * hook reads `request.routeOptions` twice (a getter that builds an object each time), spreads its
 * options and makes a closure on every request it sees, and most requests are not preflights. The
 * headers of every other answer depend only on the configured origins and the request's Origin,
 * so they are added here by a hook decided once, the same headers @fastify/cors adds: the allowed
 * origin (`*`, or the request's Origin when it is in the list), the exposed headers, and
 * `Vary: Origin` when the answer depends on the Origin (a list).
 */
async function registerCors(app: App, corsOrigins: string): Promise<void> {
  const list = corsOrigins
    .split(",")
    .map((o) => o.trim())
    .filter(Boolean);
  const anyOrigin = list.includes("*");
  await app.register(async (preflights) => {
    await preflights.register(cors, {
      origin: anyOrigin ? "*" : list,
      methods: ["GET", "POST", "PUT", "PATCH", "DELETE"],
      // idempotency-key: the SDK's creates send one (recruiting API), also from a browser.
      allowedHeaders: ["authorization", "content-type", "x-request-id", "idempotency-key"],
      exposedHeaders: EXPOSED_HEADERS.split(", "),
      maxAge: 600,
    });
  });
  app.addHook("onRequest", (request, reply, done) => {
    if (request.raw.method === "OPTIONS") return void done(); // @fastify/cors's, above
    if (anyOrigin) {
      reply.header("access-control-allow-origin", "*");
    } else {
      addVaryOrigin(reply);
      const origin = request.headers.origin;
      if (origin !== undefined && list.includes(origin)) reply.header("access-control-allow-origin", origin);
    }
    reply.header("access-control-expose-headers", EXPOSED_HEADERS);
    done();
  });
}

/** `Vary: Origin` added to what the answer varies by already (as @fastify/cors's vary helper does). */
function addVaryOrigin(reply: FastifyReply): void {
  const vary = reply.getHeader("vary");
  if (vary === undefined || vary === "") {
    reply.header("vary", "Origin");
    return;
  }
  const text = Array.isArray(vary) ? vary.join(", ") : String(vary);
  const names = text.split(",").map((v) => v.trim().toLowerCase());
  if (!names.includes("*") && !names.includes("origin")) reply.header("vary", `${text}, Origin`);
}

/**
 * Rate limits (429 with Retry-After), security headers, and nothing else: body size (413) and
 * server timeouts are set where the app and server are created.
 */
export async function registerProtection(app: App, opts: ProtectionOptions): Promise<void> {
  app.addHook("onRequest", (_request, reply, done) => {
    reply.headers(SECURITY_HEADERS);
    done();
  });
  if (opts.corsOrigins) await registerCors(app, opts.corsOrigins);
  const perOrganisation = opts.by === "principal" ? (opts.perOrganisationPerMinute ?? 0) : 0;
  if (opts.perMinute <= 0 && perOrganisation <= 0) return;
  // ioredis is loaded only when a Redis is configured.
  const redis = opts.redisUrl
    ? new (await import("ioredis")).Redis(opts.redisUrl, {
        enableOfflineQueue: false,
        maxRetriesPerRequest: 1,
        connectTimeout: 2000,
        lazyConnect: false,
      })
    : undefined;
  redis?.on("error", () => {}); // a Redis outage lets requests through (skipOnError) rather than failing them
  if (redis) {
    app.addHook("onClose", async () => void redis.disconnect());
    // Without an offline queue, commands sent before the connection is up fail (and are let
    // through): start counting with a connected client, or after 2 s degraded.
    await Promise.race([once(redis, "ready"), sleep(2000)]);
  }
  await app.register(rateLimit, {
    global: opts.perMinute > 0,
    max: opts.perMinute,
    timeWindow: 60_000,
    hook: opts.by === "principal" ? "preHandler" : "onRequest",
    keyGenerator: (request: FastifyRequest) =>
      opts.by === "principal" && request.principal ? `sub:${request.principal.sub}` : `ip:${request.ip}`,
    ...(redis ? { redis, nameSpace: `hirebridge:ratelimit:${opts.name}:`, skipOnError: true } : {}),
    // Health, readiness and metrics are for the platform, not callers.
    allowList: isPlatformPath,
    errorResponseBuilder: (_request, context) =>
      Object.assign(new Error(`Rate limit exceeded: ${context.max} requests per minute; retry in ${context.after}`), { statusCode: 429 }),
  });
  if (perOrganisation > 0) limitPerOrganisation(app, perOrganisation);
}

/** Health, readiness and metrics are for the platform, not callers. */
const isPlatformPath = (request: FastifyRequest) => ["/healthz", "/readyz", "/metrics"].includes(request.url.split("?")[0] ?? "");

/**
 * The organisation's own count, in the same store (in-process, or Redis shared by the instances)
 * under keys of its own (`org:`), checked after bearer auth and after the caller's own limit (a
 * request refused for its caller does not spend its organisation's count); requests without an
 * organisation (public routes, the webhook receivers) are not counted here. Past it: 429 with
 * Retry-After, as for a caller's own limit.
 */
function limitPerOrganisation(app: App, max: number): void {
  const limit = app.createRateLimit({
    max,
    timeWindow: 60_000,
    keyGenerator: (request: FastifyRequest) => `org:${request.principal?.orgId}`,
    allowList: (request: FastifyRequest) => !request.principal?.orgId || isPlatformPath(request),
  });
  const check = async (request: FastifyRequest, reply: FastifyReply) => {
    const counted = await limit(request);
    if (counted.isAllowed || !counted.isExceeded) return;
    reply.header("retry-after", counted.ttlInSeconds);
    throw Object.assign(
      new Error(`Rate limit exceeded: ${counted.max} requests per minute for the organisation; retry in ${counted.ttlInSeconds} seconds`),
      { statusCode: 429 },
    );
  };
  // A route's own preHandler, added after the one @fastify/rate-limit adds for the caller's limit.
  app.addHook("onRoute", (route) => {
    if (route.config?.rateLimit === false) return;
    const own = route.preHandler;
    route.preHandler = own === undefined ? [check] : [...(Array.isArray(own) ? own : [own]), check];
  });
}
