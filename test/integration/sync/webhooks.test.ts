import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, test } from "node:test";
import type { IntegrationSyncs, WebhookResponse } from "../../../src/contracts/proxy/webhooks.js";
import { signWebhookBody } from "../../../src/shared/upstream/webhook-signature.js";
import { describeEachDatabase } from "../../helpers/db.js";
import { call, eventually, startTestStack, type TestStack } from "../../helpers/stack.js";

const eventId = () => randomBytes(12).toString("base64url");

describeEachDatabase("webhook receivers", (getDb) => {
  let stack: TestStack;
  let token: string;
  let integrationId: string;
  before(async () => {
    // No delivery from the sandbox: the tests send every event themselves.
    stack = await startTestStack(getDb(), { sandbox: { applications: 30, webhookUrl: undefined as never } });
    integrationId = stack.sandbox.demoIntegrationId;
    token = (await stack.login(stack.sandbox.demoOrgId)).accessToken;
    // The demo integration becomes the demo org's when first named by it (adopted from origin_id).
    assert.equal((await call(`${stack.proxyUrl}/integrations/${encodeURIComponent(integrationId)}`, { token })).status, 200);
  });
  after(async () => {
    await stack.close();
  });

  const receiver = (kind: string, query = "") => `${stack.proxyUrl}/webhooks/upstream/${kind}${query}`;
  async function deliver(kind: string, body: unknown, opts: { secret?: string; header?: string; raw?: string; query?: string } = {}) {
    const raw = opts.raw ?? JSON.stringify(body);
    const signature = signWebhookBody(raw, opts.secret ?? stack.sandbox.webhookSecret);
    const res = await fetch(receiver(kind, opts.query), {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(opts.header === "none" ? {} : { [opts.header ?? "x-kombo-signature"]: signature }),
      },
      body: raw,
    });
    return { status: res.status, body: (await res.json()) as WebhookResponse & { detail?: unknown } };
  }
  const storedEvents = async () => (await getDb().query<{ id: string; status: string }>("select id, status from webhook_events")).length;
  const syncsOf = async (id = integrationId) =>
    (await call<IntegrationSyncs>(`${stack.proxyUrl}/integrations/${encodeURIComponent(id)}/syncs`, { token })).body;
  const dataChanged = (id: string, models = ["ats_jobs"]) => ({
    id,
    type: "data-changed",
    data: {
      integration_id: integrationId,
      integration_tool: "greenhouse",
      integration_category: "ATS",
      changed_models: models.map((name) => ({ name })),
    },
  });

  test("a signed event is stored and its work runs once; a repeated delivery does nothing more", async () => {
    const id = eventId();
    const first = await deliver("data-changed", dataChanged(id), { header: "x-upstream-signature" });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.deepEqual(first.body, { received: true, processed: false, message: "stored; work queued" });
    const runs = await eventually("the delta sync to finish", async () => {
      const s = await syncsOf();
      return s.items.some((r) => r.trigger === "data-changed" && r.state === "succeeded") ? s.items : undefined;
    });
    const again = await deliver("data-changed", dataChanged(id));
    assert.equal(again.status, 200);
    assert.equal(again.body.processed, true);
    assert.match(again.body.message ?? "", /^duplicate delivery of event .*: processed/);
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal((await syncsOf()).items.length, runs.length, "the duplicate started no sync");
  });

  test("the query secret is accepted instead of a signature", async () => {
    const res = await deliver("data-changed", dataChanged(eventId()), {
      header: "none",
      query: `?webhook_secret=${encodeURIComponent(stack.sandbox.webhookSecret)}`,
    });
    assert.equal(res.status, 200);
  });

  test("a wrong or missing signature or secret is 401 and nothing is stored", async () => {
    const before = await storedEvents();
    for (const opts of [{ secret: "not-the-secret" }, { header: "none" }, { header: "none", query: "?webhook_secret=nope" }]) {
      const res = await deliver("data-changed", dataChanged(eventId()), opts);
      assert.equal(res.status, 401, JSON.stringify(opts));
      assert.equal(typeof res.body.detail, "string");
    }
    // The signature covers the exact bytes: re-serialised JSON with the same meaning does not pass.
    const body = dataChanged(eventId());
    const sig = signWebhookBody(JSON.stringify(body), stack.sandbox.webhookSecret);
    const res = await fetch(receiver("data-changed"), {
      method: "POST",
      headers: { "content-type": "application/json", "x-kombo-signature": sig },
      body: JSON.stringify(body, null, 2),
    });
    assert.equal(res.status, 401);
    assert.equal(await storedEvents(), before);
  });

  test("a body that is not JSON, or of another kind, is 422", async () => {
    const notJson = await deliver("data-changed", null, { raw: "{not json" });
    assert.equal(notJson.status, 422);
    assert.deepEqual((notJson.body.detail as { type: string }[])[0]?.type, "json_invalid");
    const wrongKind = await deliver("sync-finished", dataChanged(eventId()));
    assert.equal(wrongKind.status, 422);
    assert.deepEqual((wrongKind.body.detail as { loc: unknown[] }[])[0]?.loc, ["body", "type"]);
    const noId = await deliver("data-changed", { type: "data-changed", data: {} });
    assert.equal(noId.status, 422);
    assert.deepEqual((noId.body.detail as { loc: unknown[] }[])[0]?.loc, ["body", "id"]);
  });

  test("an event naming an integration neither Hirebridge nor the upstream knows is 404", async () => {
    const body = { ...dataChanged(eventId()), data: { ...dataChanged("x").data, integration_id: "greenhouse:doesnotexist000000000000" } };
    const res = await deliver("data-changed", body);
    assert.equal(res.status, 404);
  });

  test("state changes pause syncs and write-backs; an older report arriving late changes nothing", async () => {
    const state = (s: string, at: string) => ({
      id: eventId(),
      type: "integration-state-changed",
      data: {
        integration_tool: "greenhouse",
        integration_id: integrationId,
        integration_category: "ATS",
        end_user: { organization_name: "Demo", creator_email: null, origin_id: stack.sandbox.demoOrgId },
        qa_status: "PASSED",
        setup_status: "COMPLETED",
        state: s,
        updated_at: at,
      },
    });
    assert.equal((await deliver("integration-state-changed", state("INACTIVE", "2030-01-02T00:00:00.000Z"))).status, 200);
    // Out of order: an ACTIVE report older than the INACTIVE one.
    assert.equal((await deliver("integration-state-changed", state("ACTIVE", "2030-01-01T00:00:00.000Z"))).status, 200);
    await eventually("both state events to be settled", async () => {
      const rows = await getDb().query<{ status: string }>("select status from webhook_events where type = 'integration-state-changed'");
      return rows.length >= 2 && rows.every((r) => r.status !== "queued") ? true : undefined;
    });
    const sync = await call<WebhookResponse>(
      `${stack.proxyUrl}/webhooks/sync-all?integration_id=${encodeURIComponent(integrationId)}&type=JOBS`,
      { method: "POST", token },
    );
    assert.equal(sync.status, 200);
    const runId = sync.body.message!;
    const paused = await eventually("the run to be cancelled as paused", async () => {
      const run = (await syncsOf()).items.find((r) => r.id === runId);
      return run?.state === "cancelled" ? run : undefined;
    });
    assert.match(paused.last_error ?? "", /paused: integration is INACTIVE/);

    assert.equal((await deliver("integration-state-changed", state("ACTIVE", "2030-01-03T00:00:00.000Z"))).status, 200);
    await eventually("syncs to resume when ACTIVE again", async () => {
      const s = await syncsOf();
      return s.items.some((r) => r.trigger === "integration-state-changed" && r.state === "succeeded") ? true : undefined;
    });
  });

  test("sync-all validates its type, checks the tenant and answers the run id", async () => {
    const bad = await call<{ detail: { loc: unknown[] }[] }>(
      `${stack.proxyUrl}/webhooks/sync-all?integration_id=${encodeURIComponent(integrationId)}&type=EVERYTHING`,
      { method: "POST", token },
    );
    assert.equal(bad.status, 422);
    assert.deepEqual(bad.body.detail[0]?.loc, ["query", "type"]);
    const missing = await call(`${stack.proxyUrl}/webhooks/sync-all`, { method: "POST", token });
    assert.equal(missing.status, 422);
    const other = await stack.login();
    const foreign = await call(`${stack.proxyUrl}/webhooks/sync-all?integration_id=${encodeURIComponent(integrationId)}`, {
      method: "POST",
      token: other.accessToken,
    });
    assert.equal(foreign.status, 404);
    const unknown = await call(`${stack.proxyUrl}/webhooks/sync-all?integration_id=greenhouse%3Anope`, { method: "POST", token });
    assert.equal(unknown.status, 404);
    const noAuth = await call(`${stack.proxyUrl}/webhooks/sync-all?integration_id=${encodeURIComponent(integrationId)}`, {
      method: "POST",
    });
    assert.equal(noAuth.status, 401);
    const foreignSyncs = await call(`${stack.proxyUrl}/integrations/${encodeURIComponent(integrationId)}/syncs`, {
      token: other.accessToken,
    });
    assert.equal(foreignSyncs.status, 404);
    const ok = await call<WebhookResponse>(`${stack.proxyUrl}/webhooks/sync-all?integration_id=${encodeURIComponent(integrationId)}`, {
      method: "POST",
      token,
    });
    assert.equal(ok.status, 200);
    assert.match(ok.body.message ?? "", /^[0-9a-f-]{36}$/);
    const run = (await syncsOf()).items.find((r) => r.id === ok.body.message);
    assert.equal(run?.model, "jobs");
    assert.equal(run?.type, "FULL");
  });

  test("integration-deleted stops work, unlinks positions and candidates, and the integration is gone", async () => {
    await eventually("some positions linked", async () => {
      const res = await call<{ items: { upstream_integration_id?: string | null }[] }>(
        `${stack.apiUrl}/org/${stack.sandbox.demoOrgId}/position`,
        { token },
      );
      return res.body.items.some((p) => p.upstream_integration_id === integrationId) ? true : undefined;
    });
    const res = await deliver("integration-deleted", {
      id: eventId(),
      type: "integration-deleted",
      data: {
        id: integrationId,
        tool: "greenhouse",
        category: "ATS",
        end_user: { organization_name: "Demo", creator_email: null, origin_id: stack.sandbox.demoOrgId },
        deleted_at: new Date().toISOString(),
      },
    });
    assert.equal(res.status, 200);
    await eventually("positions unlinked", async () => {
      const list = await call<{ items: { upstream_integration_id?: string | null; upstream_job_id_id?: string | null }[] }>(
        `${stack.apiUrl}/org/${stack.sandbox.demoOrgId}/position`,
        { token },
      );
      return list.body.items.length > 0 && list.body.items.every((p) => !p.upstream_integration_id && !p.upstream_job_id_id)
        ? true
        : undefined;
    });
    const gone = await call(`${stack.proxyUrl}/integrations/${encodeURIComponent(integrationId)}`, { token });
    assert.equal(gone.status, 404);
  });
});
