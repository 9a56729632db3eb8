/**
 * The whole product in one test process, over real HTTP: the token service, the upstream sandbox
 * (delivering signed webhooks to the proxy), the recruiting API and the integration proxy with its
 * job workers, all on one database and one job queue. Tests talk to it only through the public APIs
 * and the sandbox's admin surface.
 */
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { buildRecruitingApp } from "../../src/services/recruiting/app.js";
import { openJobQueue, type JobQueue } from "../../src/shared/jobs/queue.js";
import { acquireWebhooksOut, buildProxyWithSync, recruitingHooks, recruitingOwnership } from "../../src/runtime/wiring.js";
import type { IntegrationSyncs, WriteBack } from "../../src/contracts/proxy/webhooks.js";
import { createAuditLog } from "../../src/services/audit/audit-log.js";
import type { Database } from "../../src/shared/db/database.js";
import type { App } from "../../src/shared/http/create-app.js";
import { startTestIdentity, type TestIdentity, type TestLogin } from "./auth.js";
import { silentLogger, testConfig } from "./config.js";
import { freePort } from "./ports.js";
import { startSandbox, type StartSandboxOptions, type TestSandbox } from "./sandbox.js";

export type TestStack = {
  identity: TestIdentity;
  sandbox: TestSandbox;
  queue: JobQueue;
  proxy: App;
  recruiting: App;
  proxyUrl: string;
  apiUrl: string;
  /** A user of a new organisation (or of `orgId`), logged in. */
  login(orgId?: string): Promise<TestLogin>;
  close(): Promise<void>;
};

export async function startTestStack(
  database: Database,
  opts: {
    sandbox?: StartSandboxOptions;
    config?: Record<string, string | number>;
    /** The token service's own settings (e.g. AUTH_ACCESS_TOKEN_ALG). */
    identity?: Record<string, string | number>;
    workers?: boolean;
    /** The recruiting API records its changes in the audit log (services/audit), as the launcher wires it. */
    audit?: boolean;
  } = {},
): Promise<TestStack> {
  const identity = await startTestIdentity(database, opts.identity ? { overrides: opts.identity } : {});
  const proxyPort = await freePort();
  const sandbox = await startSandbox({ webhookUrl: `http://127.0.0.1:${proxyPort}/api/v1/webhooks/upstream`, ...opts.sandbox });
  const config = testConfig({
    UPSTREAM_BASE_URL: sandbox.url,
    UPSTREAM_API_KEY: sandbox.apiKey,
    UPSTREAM_WEBHOOK_SECRET: sandbox.webhookSecret,
    PROXY_PORT: proxyPort,
    UPSTREAM_RETRY_BASE_MS: 20,
    UPSTREAM_TIMEOUT_MS: 5000,
    ...opts.config,
  });
  const logger = silentLogger();
  const queue = await openJobQueue(database, logger, { pollingIntervalSeconds: 0.5, fair: config.JOBS_FAIR });
  // The process's outbound webhooks, as the launcher wires them: the API serves their endpoints.
  const webhooks = await acquireWebhooksOut({ config, database, logger });
  const recruiting = await buildRecruitingApp({
    config,
    database,
    logger,
    verify: identity.verify,
    hooks: recruitingHooks(queue),
    ownership: recruitingOwnership(database),
    events: webhooks.module.events,
    modules: [webhooks.module.routes],
    ...(opts.audit ? { audit: createAuditLog() } : {}),
  });
  const proxy = await buildProxyWithSync({ config, database, logger, verify: identity.verify, queue, workers: opts.workers ?? true });
  await proxy.listen({ host: "127.0.0.1", port: proxyPort });
  await recruiting.listen({ host: "127.0.0.1", port: 0 });
  const apiPort = (recruiting.server.address() as AddressInfo).port;
  return {
    identity,
    sandbox,
    queue,
    proxy,
    recruiting,
    proxyUrl: `http://127.0.0.1:${proxyPort}/api/v1`,
    apiUrl: `http://127.0.0.1:${apiPort}/api/v1`,
    login: (orgId) => identity.login(orgId ? { orgId } : {}),
    async close() {
      await sandbox.close();
      await proxy.close();
      await recruiting.close();
      await webhooks.release();
      await queue.stop();
      await identity.close();
    },
  };
}

/** JSON over HTTP with a bearer token; answers status and parsed body. */
export async function call<T = unknown>(
  url: string,
  opts: { method?: string; token?: string; body?: unknown } = {},
): Promise<{ status: number; body: T }> {
  const res = await fetch(url, {
    method: opts.method ?? "GET",
    headers: {
      ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
      ...(opts.body !== undefined ? { "content-type": "application/json" } : {}),
    },
    ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
}

/**
 * Connects an ATS as the org's person would: a connect link from the proxy, the sandbox's connect
 * page confirmed with `toolId` (as its form posts it), the activation token handed to the proxy.
 * Answers the new integration's id.
 */
export async function connectThroughPage(proxyUrl: string, token: string, toolId: string): Promise<string> {
  const link = await call<{ data: { link: string } }>(`${proxyUrl}/connect/create-link`, {
    method: "POST",
    token,
    body: { end_user_email: "it@acme.test", end_user_organization_name: "Acme", integration_category: "ATS" },
  });
  if (link.status !== 200) throw new Error(`create-link answered ${link.status}: ${JSON.stringify(link.body)}`);
  const confirmUrl = new URL(link.body.data.link);
  confirmUrl.pathname += "/confirm";
  confirmUrl.search = "";
  const confirm = await call<{ activation_token: string; integration_id: string }>(confirmUrl.toString(), {
    method: "POST",
    body: { tool_id: toolId },
  });
  if (confirm.status !== 200) throw new Error(`the connect page answered ${confirm.status}: ${JSON.stringify(confirm.body)}`);
  const activated = await call(`${proxyUrl}/connect/activate`, {
    method: "POST",
    token,
    body: { activation_token: confirm.body.activation_token },
  });
  if (activated.status !== 200) throw new Error(`activate answered ${activated.status}: ${JSON.stringify(activated.body)}`);
  return confirm.body.integration_id;
}

/** Polls `probe` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ""}`);
    await sleep(200);
  }
}

/**
 * A candidate's write-backs in the integration's history (newest first), once there are `count`
 * and none is pending. The ATS has a write-back's last change a moment before Hirebridge records it
 * done, so a test that goes on from the history (or takes a snapshot of it) waits for this, not
 * for the ATS.
 */
export function settledWriteBacks(
  stack: TestStack,
  token: string,
  integrationId: string,
  candidateId: string,
  count = 1,
): Promise<WriteBack[]> {
  const url = `${stack.proxyUrl}/integrations/${encodeURIComponent(integrationId)}/syncs`;
  return eventually(`${count} write-back(s) of candidate ${candidateId}, none pending`, async () => {
    const mine = (await call<IntegrationSyncs>(url, { token })).body.write_backs.filter((w) => w.candidate_id === candidateId);
    return mine.length === count && mine.every((w) => w.state !== "pending") ? mine : undefined;
  });
}

export type SyncedPosition = { id: string; name: string; upstream_integration_id?: string | null; candidate_stage?: string | null };
export type SyncedCandidate = { id: string; name: string; upstream_application_id?: string };

/**
 * A full sync of the sandbox's demo integration through the proxy (sync-all, followed to its
 * applications run), and the first synced position of it with at least `atLeast` candidates.
 */
export async function syncedDemoPosition(
  stack: TestStack,
  token: string,
  atLeast = 2,
): Promise<{ position: SyncedPosition; candidates: SyncedCandidate[] }> {
  const integrationId = stack.sandbox.demoIntegrationId;
  const orgId = stack.sandbox.demoOrgId;
  const enc = encodeURIComponent(integrationId);
  const started = await call(`${stack.proxyUrl}/webhooks/sync-all?integration_id=${enc}`, { method: "POST", token });
  if (started.status !== 200) throw new Error(`sync-all answered ${started.status}`);
  await eventually("the full sync", async () => {
    const runs = (await call<{ items: { model: string; state: string }[] }>(`${stack.proxyUrl}/integrations/${enc}/syncs`, { token })).body
      .items;
    return runs.some((r) => r.model === "applications" && r.state === "succeeded") ? true : undefined;
  });
  const positions = (await call<{ items: SyncedPosition[] }>(`${stack.apiUrl}/org/${orgId}/position`, { token })).body.items;
  for (const position of positions.filter((x) => x.upstream_integration_id === integrationId && x.candidate_stage)) {
    const candidates = (await call<SyncedCandidate[]>(`${stack.apiUrl}/org/${orgId}/positions/${position.id}/`, { token })).body;
    if (candidates.length >= atLeast) return { position, candidates };
  }
  throw new Error(`no synced position with ${atLeast} candidates`);
}
