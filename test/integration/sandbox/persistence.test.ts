/**
 * The sandbox's state file: what writes changed survives a rebuild of the app from the same file,
 * answer for answer, and later writes still sort after the restored ones.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { buildSandboxApp, type SandboxApp } from "../../../src/services/sandbox/app.js";
import { silentLogger } from "../../helpers/config.js";
import { TEST_DEMO_ORG_ID } from "../../helpers/sandbox.js";

const KEY = "sandbox-api-key";
let dir: string;
let stateFile: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "hirebridge-sandbox-state-"));
  stateFile = join(dir, "sandbox", "state.json");
});
after(() => rm(dir, { recursive: true, force: true }));

const build = (seed = 7): SandboxApp =>
  buildSandboxApp({
    logger: silentLogger(),
    seed,
    applications: 50,
    apiKey: KEY,
    webhookSecret: "s",
    webhookUrl: null,
    demoOrgId: TEST_DEMO_ORG_ID,
    stateFile,
    syncDurationMs: 10,
  });

type Sandbox = SandboxApp["app"];
async function call<T = Record<string, unknown>>(
  app: Sandbox,
  method: "GET" | "POST" | "PUT" | "DELETE",
  url: string,
  integration?: string,
  body?: unknown,
) {
  const res = await app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${KEY}`, ...(integration ? { "x-integration-id": integration } : {}) },
    ...(body === undefined ? {} : { payload: body as never }),
  });
  assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.json() as T;
}
type Page<T> = { data: { results: T[]; next: string | null } };
type App = { id: string; job_id: string; candidate_id: string; changed_at: string };

/** Everything a client could read, to compare before and after. */
async function everything(app: Sandbox, demo: string, since: string) {
  const read = (path: string, integration = demo) => call<Page<unknown>>(app, "GET", `/v1${path}`, integration);
  const list = await call<{ integrations: { id: string }[] }>(app, "GET", "/sandbox/integrations");
  return {
    integrations: list,
    applications: await read("/ats/applications?page_size=250&include_deleted=true"),
    candidates: await read("/ats/candidates?page_size=250"),
    tags: await read("/ats/tags?page_size=250"),
    changed: await read(`/ats/applications?page_size=250&updated_after=${encodeURIComponent(since)}`),
    customFields: await read(`/integrations/${encodeURIComponent(demo)}/custom-fields`),
    others: await Promise.all(list.integrations.filter((i) => i.id !== demo).map((i) => read("/ats/jobs?page_size=250", i.id))),
  };
}

test("writes, a created integration and a connect link survive a rebuild from the state file; reads answer the same", async () => {
  const first = build();
  const demo = first.demoIntegrationId;
  const since = new Date().toISOString();
  const apps = (await call<Page<App>>(first.app, "GET", "/v1/ats/applications?page_size=5", demo)).data.results;
  const job = (
    await call<Page<{ id: string; stages: { id: string; name: string }[] }>>(first.app, "GET", `/v1/ats/jobs?ids=${apps[0]!.job_id}`, demo)
  ).data.results[0]!;
  const offer = job.stages.find((s) => s.name === "Offer")!;

  // Upstream API writes: a stage move, a note, a result link, a tag, a new application, a field mapping.
  await call(first.app, "PUT", `/v1/ats/applications/${apps[0]!.id}/stage`, demo, { stage_id: offer.id });
  await call(first.app, "POST", `/v1/ats/applications/${apps[0]!.id}/notes`, demo, { content: "Score 85", content_type: "PLAIN_TEXT" });
  await call(first.app, "POST", `/v1/ats/applications/${apps[0]!.id}/result-links`, demo, {
    label: "AI interview",
    url: "https://hb.example/i/x",
  });
  await call(first.app, "POST", `/v1/ats/candidates/${apps[1]!.candidate_id}/tags`, demo, { tag: { name: "Persisted tag" } });
  await call(first.app, "POST", `/v1/ats/jobs/${job.id}/applications`, demo, {
    candidate: { first_name: "Ada", last_name: "Lovelace", email_address: "ada@persist.example" },
  });
  const custom = (await call<Page<{ id: string }>>(first.app, "GET", `/v1/integrations/${encodeURIComponent(demo)}/custom-fields`, demo))
    .data.results[3]!;
  const field = (
    await call<Page<{ id: string }>>(first.app, "GET", `/v1/integrations/${encodeURIComponent(demo)}/integration-fields`, demo)
  ).data.results[0]!;
  await call(first.app, "PUT", `/v1/integrations/${encodeURIComponent(demo)}/custom-fields/${custom.id}`, demo, {
    integration_field_id: field.id,
  });
  // Admin: one integration created and kept, one created and deleted; a connect link handed out.
  const kept = await call<{ id: string }>(first.app, "POST", "/sandbox/integrations", undefined, {
    tool: "lever",
    org_id: TEST_DEMO_ORG_ID,
  });
  const gone = await call<{ id: string }>(first.app, "POST", "/sandbox/integrations", undefined, { tool: "workable" });
  await call(first.app, "DELETE", `/sandbox/integrations/${encodeURIComponent(gone.id)}`);
  const link = await call<{ data: { link: string } }>(first.app, "POST", "/v1/connect/create-link", undefined, {
    end_user_email: "a@b.example",
    end_user_organization_name: "B",
  });
  const before = await everything(first.app, demo, since);
  const adminView = await call(first.app, "GET", `/sandbox/integrations/${encodeURIComponent(demo)}/applications/${apps[0]!.id}`);
  await first.app.close();

  // The file holds only what the seed cannot give back: far smaller than the dataset.
  const saved = JSON.parse(await readFile(stateFile, "utf8")) as { integrations: { id: string; rows: Record<string, unknown[]> }[] };
  assert.deepEqual(saved.integrations.map((i) => i.id).sort(), [demo, kept.id].sort());
  const demoRows = saved.integrations.find((i) => i.id === demo)!.rows;
  assert.ok(
    (demoRows["applications"]?.length ?? 0) <= 3 && (demoRows["candidates"]?.length ?? 0) <= 4,
    JSON.stringify(Object.keys(demoRows)),
  );

  const second = build();
  assert.equal(second.demoIntegrationId, demo);
  assert.deepEqual(await everything(second.app, demo, since), before);
  assert.deepEqual(
    await call(second.app, "GET", `/sandbox/integrations/${encodeURIComponent(demo)}/applications/${apps[0]!.id}`),
    adminView,
  );
  const page = await second.app.inject({ method: "GET", url: new URL(link.data.link).pathname });
  assert.equal(page.statusCode, 200, "the connect link still opens");
  // A new integration does not reuse a restored or deleted one's id.
  const next = await call<{ id: string }>(second.app, "POST", "/sandbox/integrations", undefined, { tool: "workable" });
  assert.ok(![demo, kept.id, gone.id].includes(next.id));

  // A write after the restore sorts after every restored change (updated_after stays right).
  const latest = Math.max(...before.applications.data.results.map((a) => Date.parse((a as App).changed_at)));
  await call(second.app, "PUT", `/v1/ats/applications/${apps[2]!.id}/stage`, demo, { stage_id: offer.id });
  const moved = (await call<Page<App>>(second.app, "GET", `/v1/ats/applications?ids=${apps[2]!.id}`, demo)).data.results[0]!;
  assert.ok(Date.parse(moved.changed_at) > latest);
  await second.app.close();
});
