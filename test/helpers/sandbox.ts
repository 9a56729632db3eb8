/**
 * Starts the upstream sandbox on a free 127.0.0.1 port for tests: the real app over real HTTP,
 * seeded deterministically. Point a client (the proxy, the SDK) at `url` with `apiKey`, and send
 * X-Integration-Id `demoIntegrationId`. Drive upstream changes and failures through the admin
 * surface at `${origin}/sandbox/...` (e.g. `PUT /sandbox/config {"fail_next":1,"fault_kinds":["503"]}`).
 */
import type { AddressInfo } from "node:net";
import { buildSandboxApp } from "../../src/services/sandbox/app.js";
import type { SandboxContext } from "../../src/services/sandbox/context.js";
import type { App } from "../../src/shared/http/create-app.js";
import { silentLogger } from "./config.js";

export type TestSandbox = {
  origin: string;
  /** origin + "/v1": the upstream base URL (the SDK's server_url). */
  url: string;
  apiKey: string;
  webhookSecret: string;
  demoIntegrationId: string;
  demoOrgId: string;
  app: App;
  /** The in-memory state (store, settings, webhook log) for assertions beyond HTTP. */
  context: SandboxContext;
  close(): Promise<void>;
};

export type StartSandboxOptions = {
  seed?: number;
  applications?: number;
  /** Receiver base: events go to `<webhookUrl>/<kind>`. Unset: delivery disabled (events are still logged). */
  webhookUrl?: string;
  apiKey?: string;
  webhookSecret?: string;
  demoOrgId?: string;
  latencyMs?: number;
  rateLimitPerSecond?: number;
  faultRate?: number;
  concurrencyLimit?: number;
  /** Delay before the first webhook retry (doubles per attempt); default 20 ms in tests. */
  webhookRetryBaseMs?: number;
  webhookMaxAttempts?: number;
  /** How long a force-sync runs before sync-finished; default 20 ms in tests. */
  syncDurationMs?: number;
};

export const TEST_DEMO_ORG_ID = "6d3f1e2a-9b4c-4f7e-8a1d-2c5b7e9f0a13";

export async function startSandbox(opts: StartSandboxOptions = {}): Promise<TestSandbox> {
  const apiKey = opts.apiKey ?? "sandbox-api-key";
  const webhookSecret = opts.webhookSecret ?? "sandbox-webhook-secret";
  const demoOrgId = opts.demoOrgId ?? TEST_DEMO_ORG_ID;
  const { app, context, demoIntegrationId } = buildSandboxApp({
    logger: silentLogger(),
    seed: opts.seed ?? 42,
    applications: opts.applications ?? 60,
    apiKey,
    webhookSecret,
    webhookUrl: opts.webhookUrl ?? null,
    demoOrgId,
    latencyMs: opts.latencyMs ?? 0,
    rateLimitPerSecond: opts.rateLimitPerSecond ?? 0,
    faultRate: opts.faultRate ?? 0,
    concurrencyLimit: opts.concurrencyLimit ?? 30,
    webhookRetry: {
      baseDelayMs: opts.webhookRetryBaseMs ?? 20,
      maxDelayMs: 1000,
      maxAttempts: opts.webhookMaxAttempts ?? 4,
      timeoutMs: 2000,
    },
    syncDurationMs: opts.syncDurationMs ?? 20,
  });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const { port } = app.server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    url: `${origin}/v1`,
    apiKey,
    webhookSecret,
    demoIntegrationId,
    demoOrgId,
    app,
    context,
    close: () => app.close(),
  };
}
