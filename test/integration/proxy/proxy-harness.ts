import type { IncomingHttpHeaders } from "node:http";
import type { InjectOptions, LightMyRequestResponse } from "fastify";
import { buildProxyWithSync } from "../../../src/runtime/wiring.js";
import type { Cache } from "../../../src/services/proxy/cache/cache.js";
import type { ProxyDeps } from "../../../src/services/proxy/proxy-deps.js";
import type { Database } from "../../../src/shared/db/database.js";
import type { App } from "../../../src/shared/http/create-app.js";
import { startTestIdentity, type TestIdentity, type TestLogin } from "../../helpers/auth.js";
import { silentLogger, testConfig } from "../../helpers/config.js";
import { freshDatabase, type DbKind } from "../../helpers/db.js";
import { startSandbox, type StartSandboxOptions, type TestSandbox } from "../../helpers/sandbox.js";

/** A request as it reached the sandbox (observed on its HTTP server, not intercepted). */
export type SeenRequest = { method: string; url: string; headers: IncomingHttpHeaders };

export type ProxyHarness = {
  app: App;
  deps: ProxyDeps;
  sandbox: TestSandbox;
  identity: TestIdentity;
  /** A user of the organisation that owns the sandbox's demo integration. */
  demo: TestLogin;
  /** A user of another organisation. */
  other: TestLogin;
  /** The demo integration's id, percent-encoded for URLs. */
  integration: string;
  /** Every request the upstream received since the last `seen.length = 0`. */
  seen: SeenRequest[];
  call(
    method: NonNullable<InjectOptions["method"]>,
    url: string,
    opts?: { token?: string | null; payload?: unknown; headers?: Record<string, string> },
  ): Promise<LightMyRequestResponse>;
  /** Another proxy app over the same database, identity and sandbox, with other settings (closed with the harness). */
  extraApp(config: Record<string, string | number>, cache?: Cache): Promise<App>;
  /** Upstream requests made on behalf of the proxy request with this X-Request-Id. */
  attempts(requestId: string): SeenRequest[];
  /** Changes the sandbox's run-time settings (faults, limits, latency). */
  sandboxConfig(patch: Record<string, unknown>): Promise<void>;
  close(): Promise<void>;
};

export type HarnessOptions = {
  /** Config overrides (strings as in the environment). */
  config?: Record<string, string | number>;
  cache?: Cache;
  sandbox?: StartSandboxOptions;
};

/**
 * The real proxy app over `database`, the real token service, and the real sandbox over HTTP.
 * Given a storage kind instead, it opens a fresh database of that kind and drops it on close.
 */
export async function startProxyHarness(storage: Database | DbKind, opts: HarnessOptions = {}): Promise<ProxyHarness> {
  const fresh = typeof storage === "string" ? await freshDatabase(storage) : undefined;
  const database = fresh ?? (storage as Database);
  const sandbox = await startSandbox(opts.sandbox);
  const identity = await startTestIdentity(database);
  const build = (overrides: Record<string, string | number> = {}, cache?: Cache) =>
    buildProxyWithSync({
      config: testConfig({
        UPSTREAM_BASE_URL: sandbox.url,
        UPSTREAM_API_KEY: sandbox.apiKey,
        UPSTREAM_RETRY_BASE_MS: 5,
        UPSTREAM_TIMEOUT_MS: 5000,
        ...overrides,
      }),
      database,
      logger: silentLogger(),
      verify: identity.verify,
      ...(cache ? { cache } : {}),
    });
  const app = await build(opts.config, opts.cache);
  const extras: App[] = [];
  const [demo, other] = await Promise.all([identity.login({ orgId: sandbox.demoOrgId }), identity.login()]);
  const seen: SeenRequest[] = [];
  sandbox.app.server.on("request", (req) => {
    seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers });
  });
  return {
    app,
    deps: app.proxy!,
    sandbox,
    identity,
    demo,
    other,
    integration: encodeURIComponent(sandbox.demoIntegrationId),
    seen,
    call(method, url, o = {}) {
      const token = o.token === undefined ? demo.accessToken : o.token;
      return app.inject({
        method,
        url,
        headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...o.headers },
        ...(o.payload !== undefined ? { payload: o.payload as string } : {}),
      });
    },
    async extraApp(config, cache) {
      const extra = await build(config, cache);
      extras.push(extra);
      return extra;
    },
    attempts: (requestId) => seen.filter((r) => r.url.startsWith("/v1/") && r.headers["x-request-id"] === requestId),
    async sandboxConfig(patch) {
      const res = await fetch(`${sandbox.origin}/sandbox/config`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(patch),
      });
      if (!res.ok) throw new Error(`sandbox config failed: ${res.status} ${await res.text()}`);
    },
    async close() {
      for (const extra of extras) await extra.close();
      await app.close();
      await identity.close();
      await sandbox.close();
      await fresh?.dispose();
    },
  };
}

/** Marks the tests' own direct calls to the sandbox, so they are not counted as the proxy's. */
const DIRECT = "proxy-test-direct";

/** Requests the proxy sent to the upstream API (not the admin surface, not the tests' own reads). */
export const upstreamCalls = (seen: SeenRequest[]) => seen.filter((r) => r.url.startsWith("/v1/") && r.headers["user-agent"] !== DIRECT);

/** JSON of a sandbox admin endpoint. */
export async function sandboxGet<T = unknown>(sandbox: TestSandbox, path: string): Promise<T> {
  const res = await fetch(`${sandbox.origin}${path}`, { headers: { "user-agent": DIRECT } });
  if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** An upstream answer read straight from the sandbox (what the proxy must pass through unchanged). */
export async function upstreamGet(
  h: ProxyHarness,
  path: string,
  integrationId = h.sandbox.demoIntegrationId,
): Promise<{ status: number; body: string }> {
  const res = await fetch(`${h.sandbox.url}${path}`, {
    headers: { authorization: `Bearer ${h.sandbox.apiKey}`, "x-integration-id": integrationId, "user-agent": DIRECT },
  });
  return { status: res.status, body: await res.text() };
}

/** The records of an upstream list of the demo integration. */
export async function upstreamList<T = Record<string, unknown>>(h: ProxyHarness, path: string): Promise<T[]> {
  const { body } = await upstreamGet(h, path);
  return (JSON.parse(body) as { data: { results: T[] } }).data.results;
}
