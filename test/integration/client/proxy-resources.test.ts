import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import {
  AbortedError,
  Hirebridge,
  NotFoundError,
  RateLimitError,
  UpstreamUnavailableError,
  ValidationError,
} from "../../../src/client/index.js";
import { startEmbeddedStack, type EmbeddedStack } from "./embedded-stack.js";

/** Every integration-proxy operation through the SDK, against the embedded stack (proxy → sandbox). */
describe("SDK: integration proxy resources", () => {
  let env: EmbeddedStack;
  let hb: Hirebridge;
  let integration: string;
  before(async () => {
    env = await startEmbeddedStack();
    integration = env.demo.integrationId;
    hb = new Hirebridge({
      authUrl: env.authUrl,
      proxyUrl: env.proxyUrl,
      credentials: { username: env.demo.username, password: env.demo.password },
    });
  });
  after(() => env.close());

  const sandbox = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${env.sandboxOrigin}${path}`, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    assert.ok(res.ok, `${method} ${path}: ${res.status} ${await res.clone().text()}`);
    return res.json() as Promise<Record<string, unknown>>;
  };

  test("general: API key check, tools, forced sync", async () => {
    const check = await hb.general.checkApiKey(integration);
    assert.equal(check.status, "success");
    assert.equal(typeof check.data.environment_id, "string");
    const tools = await hb.general.tools("ats");
    assert.ok(tools.data.tools.some((t) => t.id === "greenhouse"));
    const sync = await hb.general.forceSync(integration, { type: "FULL" });
    assert.equal(sync.data.type, "FULL");
    assert.equal(typeof sync.data.sync_id, "string");
  });

  test("integrations: details (cached and fresh), relink, fields, custom-field mapping", async () => {
    const details = await hb.integrations.get(integration);
    assert.equal(details.data.id, integration);
    assert.equal(details.data.end_user.origin_id, env.demo.orgId);
    assert.deepEqual((await hb.integrations.get(integration, { bypassCache: true })).data.id, integration);
    assert.match((await hb.integrations.relink(integration, { link_type: "MAGIC_LINK" })).data.link, /^http/);

    const page = await hb.integrations.fields.list(integration, { page_size: 3 });
    assert.equal(page.data.results.length, 3);
    const all = [];
    for await (const f of hb.integrations.fields.iterate(integration, { page_size: 3 })) all.push(f);
    assert.ok(all.length > 3);
    assert.equal(new Set(all.map((f) => f.id)).size, all.length, "no field twice across pages");

    const field = all[0]!;
    const toggled = await hb.integrations.updateField(integration, field.id, { enable_passthrough: !field.is_passthrough_enabled });
    assert.equal(toggled.data.is_passthrough_enabled, !field.is_passthrough_enabled);

    const custom = (await hb.integrations.customFields.list(integration)).data.results[0]!;
    const mapped = await hb.integrations.mapCustomField(integration, custom.id, { integration_field_id: field.id });
    assert.equal(mapped.data.integration_field?.id, field.id);
  });

  test("ATS reads: every list pages to its end with data.next", async () => {
    const applications = [];
    for await (const a of hb.ats.applications.iterate({ integration_id: integration, page_size: 7 })) applications.push(a);
    assert.equal(applications.length, 40);
    assert.equal(new Set(applications.map((a) => a.id)).size, 40);
    const lists = [
      hb.ats.jobs,
      hb.ats.tags,
      hb.ats.stages,
      hb.ats.users,
      hb.ats.offers,
      hb.ats.rejectionReasons,
      hb.ats.interviews,
    ] as const;
    for (const list of lists) {
      const first = await list.list({ integration_id: integration, page_size: 250 });
      assert.equal(first.status, "success");
      let count = 0;
      for await (const _ of list.iterate({ integration_id: integration, page_size: 2 })) count++;
      assert.equal(count, first.data.results.length, "iterating small pages yields what one big page holds");
    }
  });

  test("ATS writes: stage move, note, result link, tags, a new application, attachments", async () => {
    const jobs = await hb.ats.jobs.list({ integration_id: integration, page_size: 1 });
    const job = jobs.data.results[0]!;
    const created = await hb.ats.jobs.createApplication(integration, job.id, {
      candidate: { first_name: "Katherine", last_name: "Johnson", email_address: "katherine@example.com" },
      source: "Hirebridge SDK test",
    });
    assert.deepEqual(created.warnings, []);
    const applicationId = created.data.id;
    const target = job.stages.at(-1)!;
    await hb.ats.applications.moveStage(integration, applicationId, { stage_id: target.id });
    const moved = await hb.ats.applications.list({ integration_id: integration, ids: applicationId });
    assert.equal(moved.data.results[0]!.current_stage?.id, target.id);

    await hb.ats.applications.addNote(integration, applicationId, { content: "Strong interview", content_type: "PLAIN_TEXT" });
    await hb.ats.applications.addResultLink(integration, applicationId, { label: "Interview report", url: "https://example.com/r/1" });
    const upstreamView = await sandbox("GET", `/sandbox/integrations/${encodeURIComponent(integration)}/applications/${applicationId}`);
    assert.match(JSON.stringify(upstreamView), /Strong interview/);
    assert.match(JSON.stringify(upstreamView), /Interview report/);

    const candidateId = created.data.candidate!.id;
    await hb.ats.candidates.addTag(integration, candidateId, { tag: { name: "sdk-tested" } });
    const tags = await hb.ats.tags.list({ integration_id: integration, page_size: 250 });
    assert.ok(tags.data.results.some((t) => t.name === "sdk-tested"));
    await hb.ats.candidates.removeTag(integration, candidateId, { tag: { name: "sdk-tested" } });

    const attachments = await hb.ats.applications.attachments(integration, applicationId);
    assert.ok(Array.isArray(attachments.data.results));
  });

  test("connect: create a link, confirm it as the end user would, activate the integration", async () => {
    const { data } = await hb.connect.createLink({
      end_user_email: "it@acme.example",
      end_user_organization_name: "Acme",
      integration_category: "ATS",
    });
    const confirmed = await fetch(`${data.link}/confirm`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ tool_id: "lever" }),
    });
    const { activation_token, integration_id } = (await confirmed.json()) as { activation_token: string; integration_id: string };
    const activated = await hb.connect.activate({ activation_token });
    assert.equal(activated.data.id, integration_id);
    assert.equal(activated.data.tool, "lever");
    assert.equal((await hb.integrations.get(integration_id)).data.id, integration_id);

    // The organisation's list has it (and the demo integration, recorded once a call named it), page by page as well as at once.
    await hb.integrations.get(integration);
    const { items } = await hb.integrations.list();
    const listed = items.find((i) => i.id === integration_id);
    assert.equal(listed?.tool, "lever");
    assert.ok(
      items.some((i) => i.id === integration),
      "the demo integration is listed too",
    );
    const iterated = [];
    for await (const i of hb.integrations.iterate({ pageSize: 1 })) iterated.push(i.id);
    assert.deepEqual(
      iterated,
      items.map((i) => i.id),
    );
    const page = await hb.integrations.list({ limit: 1 });
    assert.equal(page.items.length, 1);
    assert.equal(typeof page.next_cursor, "string");
  });

  test("delete removes the integration: afterwards it is NotFoundError", async () => {
    const created = await sandbox("POST", "/sandbox/integrations", { org_id: env.demo.orgId, tool: "greenhouse", applications: 2 });
    const id = created["id"] as string;
    assert.equal((await hb.integrations.get(id)).data.id, id);
    await hb.integrations.delete(id);
    await assert.rejects(hb.integrations.get(id, { bypassCache: true }), NotFoundError);
  });

  test("sync: run jobs then applications to the end; follow one run; read the runs back", async () => {
    const snapshots = [];
    for await (const runs of hb.sync.run(integration, { pollIntervalMs: 100 })) snapshots.push(runs);
    const last = snapshots.at(-1)!;
    assert.deepEqual(
      last.map((r) => [r.model, r.type, r.state]),
      [
        ["jobs", "FULL", "succeeded"],
        ["applications", "FULL", "succeeded"],
      ],
    );
    // Progress comes model by model: the jobs run is reported before the applications run starts.
    // (Whether a poll catches a run still going depends on the machine: the demo's runs take milliseconds.)
    const firstJobsOnly = snapshots.findIndex((s) => s.length === 1 && s[0]!.model === "jobs");
    assert.ok(firstJobsOnly >= 0 && firstJobsOnly < snapshots.findIndex((s) => s.length === 2), "progress was reported before the end");

    const started = await hb.sync.start(integration, { type: "JOBS" });
    assert.equal(started.received, true);
    const seen = [];
    for await (const run of hb.sync.follow(integration, started.message!, { pollIntervalMs: 100 })) seen.push(run.state);
    assert.equal(seen.at(-1), "succeeded");
    const { items } = await hb.sync.runs(integration, { limit: 5 });
    assert.ok(items.some((r) => r.id === started.message && r.state === "succeeded"));

    const controller = new AbortController();
    controller.abort();
    await assert.rejects(async () => {
      for await (const _ of hb.sync.follow(integration, started.message!, { signal: controller.signal }));
    }, AbortedError);
  });

  test("proxy failures arrive typed: 422 detail, upstream 502, 429 with retryAfter", async () => {
    const invalid = await hb.ats.jobs.list({ integration_id: integration, page_size: 999 }).catch((e: unknown) => e);
    assert.ok(invalid instanceof ValidationError);
    assert.deepEqual(invalid.detail[0]!.loc, ["query", "page_size"]);

    const applications = await hb.ats.applications.list({ integration_id: integration, page_size: 1 });
    const appId = applications.data.results[0]!.id;
    // Scoped to this one path: webhook-triggered syncs may be calling the sandbox meanwhile.
    await sandbox("PUT", "/sandbox/config", { fail_next: 1, fault_kinds: ["500"], fault_path_prefix: `/ats/applications/${appId}/notes` });
    const upstream = await hb.ats.applications.addNote(integration, appId, { content: "x" }).catch((e: unknown) => e);
    assert.ok(upstream instanceof UpstreamUnavailableError, String(upstream));
    assert.equal(upstream.status, 502);

    // The limit is scoped to the note's path too: a sync reading the lists meanwhile (webhooks from
    // the notes added here start one) would otherwise spend the one-per-second budget first.
    const notes = `/ats/applications/${appId}/notes`;
    await sandbox("PUT", "/sandbox/config", {
      rate_limit_per_second: 1,
      rate_limit_path_prefix: notes,
      fail_next: 0,
      fault_path_prefix: null,
    });
    try {
      await hb.ats.applications.addNote(integration, appId, { content: "takes the only token" }).catch(() => undefined);
      const limited = await hb.ats.applications.addNote(integration, appId, { content: "y" }, { maxRetries: 0 }).catch((e: unknown) => e);
      assert.ok(limited instanceof RateLimitError, String(limited));
      assert.equal(limited.retryAfter, 1);
      // With retries allowed, the SDK waits Retry-After and gets through.
      const ok = await hb.ats.applications.addNote(integration, appId, { content: "z" }, { maxRetries: 5 });
      assert.equal(ok.status, "success");
    } finally {
      await sandbox("PUT", "/sandbox/config", { rate_limit_per_second: 0, rate_limit_path_prefix: null });
    }
  });
});
