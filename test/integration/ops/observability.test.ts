import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import type { IntegrationSyncs } from "../../../src/contracts/proxy/webhooks.js";
import { describeEachDatabase } from "../../helpers/db.js";
import { freePort } from "../../helpers/ports.js";
import { call, eventually, startTestStack, type TestStack } from "../../helpers/stack.js";

/** The value of the first series of `name` whose labels include every `labels` pair. */
function sample(metrics: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of metrics.split("\n")) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) return Number(line.split(" ").at(-1));
  }
  return undefined;
}

describeEachDatabase("metrics", (getDb, kind) => {
  let stack: TestStack;
  before(async () => {
    stack = await startTestStack(getDb(), { sandbox: { webhookUrl: undefined as never } });
  });
  after(async () => {
    await stack.close();
  });

  test("the proxy's /metrics: requests by route, upstream calls, cache hits, queue depth and sync lag", {
    skip: kind === "pglite" && "one storage kind is enough",
  }, async () => {
    const id = stack.sandbox.demoIntegrationId;
    const token = (await stack.login(stack.sandbox.demoOrgId)).accessToken;
    const enc = encodeURIComponent(id);
    for (let i = 0; i < 2; i++) {
      assert.equal((await call(`${stack.proxyUrl}/ats/jobs?integration_id=${enc}`, { token })).status, 200);
      assert.equal((await call(`${stack.proxyUrl}/general/tools/ats`, { token })).status, 200);
    }
    assert.equal(
      (await call(`${stack.proxyUrl}/webhooks/sync-all?integration_id=${enc}&type=JOBS`, { method: "POST", token })).status,
      200,
    );
    await eventually("the sync", async () => {
      const runs = (await call<IntegrationSyncs>(`${stack.proxyUrl}/integrations/${enc}/syncs`, { token })).body.items;
      return runs.some((r) => r.state === "succeeded") ? true : undefined;
    });
    const res = await fetch(`${stack.proxyUrl.replace("/api/v1", "")}/metrics`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /text\/plain/);
    const text = await res.text();
    assert.ok(
      (sample(text, "hirebridge_http_requests_total", { service: "proxy", route: "/api/v1/ats/jobs", status_code: "200" }) ?? 0) >= 2,
    );
    assert.ok(
      sample(text, "hirebridge_http_request_duration_seconds_count", { service: "proxy", route: "/api/v1/general/tools/:category" }),
    );
    assert.ok((sample(text, "hirebridge_upstream_request_duration_seconds_count", { operation: "listJobs", status: "200" }) ?? 0) >= 2);
    assert.ok((sample(text, "hirebridge_upstream_request_duration_seconds_count", { operation: "sync GET /ats/jobs" }) ?? 0) >= 1);
    assert.ok((sample(text, "hirebridge_cache_requests_total", { result: "hit" }) ?? 0) >= 1);
    assert.ok((sample(text, "hirebridge_cache_requests_total", { result: "miss" }) ?? 0) >= 1);
    assert.notEqual(sample(text, "hirebridge_job_queue_depth", { queue: "sync", state: "ready" }), undefined);
    const lag = sample(text, "hirebridge_sync_lag_seconds", { integration_id: id, model: "jobs" });
    assert.ok(lag !== undefined && lag >= 0 && lag < 600, String(lag));
    assert.doesNotMatch(text, /Bearer|sandbox-api-key/);
    // Every service has one.
    for (const origin of [stack.apiUrl.replace("/api/v1", ""), stack.sandbox.origin, stack.identity.authUrl.replace(/\/realms\/.*$/, "")]) {
      assert.equal((await fetch(`${origin}/metrics`)).status, 200, origin);
      assert.equal((await fetch(`${origin}/readyz`)).status, 200, origin);
    }
  });
});

test("traces are exported over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set", async (t) => {
  const received: { path: string; body: Buffer }[] = [];
  const collector = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ path: req.url ?? "", body: Buffer.concat(chunks) });
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve));
  const collectorPort = (collector.address() as { port: number }).port;
  const port = await freePort();
  const dataDir = await mkdtemp(join(tmpdir(), "hirebridge-otel-"));
  const child = spawn(process.execPath, ["--import", "tsx", "src/cli/main.ts", "serve", "sandbox"], {
    cwd: fileURLToPath(new URL("../../..", import.meta.url)),
    env: {
      ...process.env,
      SANDBOX_PORT: String(port),
      SANDBOX_APPLICATIONS: "10",
      DATA_DIR: dataDir,
      LOG_LEVEL: "warn",
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${collectorPort}`,
      OTEL_SERVICE_NAME: "hirebridge-test",
      OTEL_BSP_SCHEDULE_DELAY: "200",
    },
    stdio: "ignore",
  });
  t.after(() => {
    child.kill("SIGKILL");
    collector.close();
    void rm(dataDir, { recursive: true, force: true });
  });
  await eventually(
    "the sandbox to start",
    async () => ((await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null))?.ok ? true : undefined),
    60_000,
  );
  const res = await fetch(`http://127.0.0.1:${port}/v1/check-api-key`, { headers: { authorization: "Bearer sandbox-api-key" } });
  assert.equal(res.status, 200);
  const trace = await eventually("a trace export", async () => received.find((r) => r.path === "/v1/traces"), 30_000);
  // The export names the service and the request's route.
  const body = trace.body.toString("latin1");
  assert.match(body, /hirebridge-test/);
  assert.match(body, /check-api-key/);
});
