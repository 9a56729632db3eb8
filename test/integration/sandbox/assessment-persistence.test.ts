/**
 * The assessment channel in the sandbox's state file: packages, orders, results and the attachment
 * bytes survive a rebuild of the app from the same file, answer for answer.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { buildSandboxApp, type SandboxApp } from "../../../src/services/sandbox/app.js";
import { silentLogger } from "../../helpers/config.js";
import { TEST_DEMO_ORG_ID } from "../../helpers/sandbox.js";
import { PACKAGES, PDF } from "./assessment-setup.js";

const KEY = "sandbox-api-key";

const build = (stateFile: string): SandboxApp =>
  buildSandboxApp({
    logger: silentLogger(),
    seed: 11,
    applications: 30,
    apiKey: KEY,
    webhookSecret: "s",
    webhookUrl: null,
    demoOrgId: TEST_DEMO_ORG_ID,
    stateFile,
    syncDurationMs: 10,
  });

async function call<T = Record<string, unknown>>(
  app: SandboxApp["app"],
  method: "GET" | "POST" | "PUT",
  url: string,
  xi?: string,
  body?: unknown,
) {
  const res = await app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${KEY}`, ...(xi ? { "x-integration-id": xi } : {}) },
    ...(body === undefined ? {} : { payload: body as never }),
  });
  assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`);
  const isJson = String(res.headers["content-type"]).startsWith("application/json");
  return { json: (isJson ? res.json() : null) as T, raw: res.rawPayload };
}

type OrderView = { id: string; attachments: { download_url: string | null }[] };

/** Everything a client or the admin view reads of the channel. */
async function channel(app: SandboxApp["app"], id: string) {
  const admin = `/sandbox/integrations/${encodeURIComponent(id)}`;
  const orders = (await call<{ orders: OrderView[] }>(app, "GET", `${admin}/assessment-orders`)).json.orders;
  return {
    packages: (await call(app, "GET", "/v1/assessment/packages", id)).json,
    orders: (await call(app, "GET", "/v1/assessment/orders", id)).json,
    views: orders,
    file: (await call(app, "GET", `${admin}/assessment-orders/${orders[0]!.id}/attachments/0`)).raw,
  };
}

test("packages, orders, results and attachment bytes survive a restart from the state file", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "hirebridge-sandbox-assessment-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const stateFile = join(dir, "sandbox", "state.json");

  const first = build(stateFile);
  const created = await call<{ id: string }>(first.app, "POST", "/sandbox/integrations", undefined, {
    category: "ASSESSMENT",
    org_id: "o",
  });
  const id = created.json.id;
  await call(first.app, "PUT", "/v1/assessment/packages", id, { packages: PACKAGES });
  const apps = [...first.context.store.get(id)!.data.applications.values()].filter((a) => a.deletedAt === null);
  const admin = `/sandbox/integrations/${encodeURIComponent(id)}/assessment-orders`;
  const a = await call<{ id: string }>(first.app, "POST", admin, undefined, { application_id: apps[0]!.id, package_id: "pkg-video" });
  await call(first.app, "POST", admin, undefined, { application_id: apps[1]!.id, package_id: "pkg-skills", inline: true });
  await call(first.app, "PUT", `/v1/assessment/orders/${a.json.id}/result`, id, {
    status: "COMPLETED",
    result_url: "https://v.example/r",
    score: 7,
    max_score: 10,
    attributes: [{ type: "TEXT", label: "Feedback", value: "Good" }],
    attachments: [{ name: "report.pdf", content_type: "application/pdf", data: PDF.toString("base64") }],
  });
  const before = await channel(first.app, id);
  assert.deepEqual(before.file, PDF);
  await first.app.close();

  const second = build(stateFile);
  t.after(() => second.app.close());
  assert.deepEqual(await channel(second.app, id), before);

  // Later changes sort after the restored ones, and new orders get new ids.
  const c = await call<{ id: string; updated_at: string }>(second.app, "POST", admin, undefined, {
    application_id: apps[2]!.id,
    package_id: "pkg-video",
  });
  const orders = (await call<{ data: { results: { id: string }[] } }>(second.app, "GET", "/v1/assessment/orders", id)).json.data.results;
  assert.deepEqual(
    orders.map((o) => o.id),
    [...before.views.map((v) => v.id), c.json.id],
  );
  assert.ok(before.views.every((v) => v.id !== c.json.id));
});

test("an order still waiting for its receiver's answer is marked failed after a restart (retries do not outlive the process)", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "hirebridge-sandbox-assessment-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const stateFile = join(dir, "sandbox", "state.json");
  const first = build(stateFile);
  const id = first.demoIntegrationId;
  await call(first.app, "PUT", "/v1/assessment/packages", id, { packages: PACKAGES });
  // Port 1 refuses connections: the first attempt fails and a retry is scheduled.
  await call(first.app, "PUT", "/sandbox/config", undefined, { webhook_url: "http://127.0.0.1:1/hooks" });
  const application = [...first.context.store.get(id)!.data.applications.values()].find((a) => a.deletedAt === null)!;
  const admin = `/sandbox/integrations/${encodeURIComponent(id)}/assessment-orders`;
  const placed = await call<{ id: string; receiver: { state: string } }>(first.app, "POST", admin, undefined, {
    application_id: application.id,
    package_id: "pkg-video",
  });
  assert.equal(placed.json.receiver.state, "retrying");
  await first.app.close();

  const second = build(stateFile);
  t.after(() => second.app.close());
  const view = await call<{ status: string; receiver: { state: string; error: string } }>(second.app, "GET", `${admin}/${placed.json.id}`);
  assert.deepEqual(
    { status: view.json.status, state: view.json.receiver.state, error: view.json.receiver.error },
    { status: "OPEN", state: "failed", error: "the sandbox restarted before the receiver answered" },
  );
});
