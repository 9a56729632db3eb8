/** Webhook signing, delivery to <base>/<kind>, retries of failed deliveries, and the events each change sends. */
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { test } from "node:test";
import {
  ConnectionFlowFailedWebhookPayload$inboundSchema,
  DataChangedWebhookPayload$inboundSchema,
  IntegrationCreatedWebhookPayload$inboundSchema,
  IntegrationDeletedWebhookPayload$inboundSchema,
  IntegrationStateChangedWebhookPayload$inboundSchema,
  SyncFinishedWebhookPayload$inboundSchema,
} from "@kombo-api/sdk/models";
import { signWebhookBody } from "../../../src/shared/upstream/webhook-signature.js";
import { startSandbox } from "../../helpers/sandbox.js";
import { sandboxWithReceiver } from "./receiver.js";
import { admin, sdkFor } from "./sdk.js";

test("the reference's known body and secret give the known signature", () => {
  const body = JSON.stringify({
    id: "5gjAtURLPbnTiwgkaBfiA3WJ",
    type: "data-changed",
    data: {
      integration_id: "greenhouse:8d1hpPsbjxUkoCoa1veLZGe5",
      integration_tool: "greenhouse",
      integration_category: "ATS",
      changed_models: [{ name: "ats_applications" }],
    },
  });
  assert.equal(signWebhookBody(body, "whsec_test"), "Pd511o9CIab70azkAgQO6TPo-3sZosRusk9Xa1f2ODY");
});

test("a write sends data-changed to <base>/data-changed, signed in both headers over the raw body", async (t) => {
  const { receiver, sandbox } = await sandboxWithReceiver(t, { webhookSecret: "whsec_test" });
  const kombo = sdkFor(sandbox);
  const candidate = (await kombo.ats.getCandidates({ page_size: 1 })).result.data.results[0]!;
  await kombo.ats.addCandidateTag({ candidate_id: candidate.id, body: { tag: { name: "Shortlist" } } });

  const hook = await receiver.waitFor((r) => r.body.type === "data-changed");
  assert.equal(hook.path, "/hooks/data-changed");
  assert.equal(hook.headers["content-type"], "application/json");
  const expected = createHmac("sha256", "whsec_test").update(hook.raw).digest("base64url");
  assert.equal(hook.headers["x-kombo-signature"], expected);
  assert.equal(hook.headers["x-upstream-signature"], expected);
  assert.match(hook.body.id, /^[1-9A-HJ-NP-Za-km-z]{24}$/);
  assert.deepEqual(hook.body.data, {
    integration_id: sandbox.demoIntegrationId,
    integration_tool: "greenhouse",
    integration_category: "ATS",
    changed_models: [{ name: "ats_candidates" }, { name: "ats_tags" }, { name: "ats_join_candidates_tags" }, { name: "ats_applications" }],
  });
});

test("a failing receiver gets the same event again until it answers 200; the log shows the attempts", async (t) => {
  // The first two deliveries fail (500, then 503), the third succeeds.
  const { receiver, sandbox } = await sandboxWithReceiver(t, { webhookRetryBaseMs: 10 }, (_r, n) => (n === 1 ? 500 : n === 2 ? 503 : 200));
  const app = sandbox.context.store.get(sandbox.demoIntegrationId)!.data.applications.at(0);
  const path = `/sandbox/integrations/${encodeURIComponent(sandbox.demoIntegrationId)}/applications/${app.id}/stage`;
  assert.equal((await admin(sandbox, "PUT", path, { stage_name: "AI Interview" })).status, 200);

  const delivered = await receiver.waitFor((r) => r.body.type === "data-changed");
  assert.equal(receiver.received.length, 3);
  assert.deepEqual(new Set(receiver.received.map((r) => r.raw)).size, 1, "every attempt carries the same event");
  const { body } = await admin<{ deliveries: { event_id: string; state: string; attempts: number; last_status: number }[] }>(
    sandbox,
    "GET",
    "/sandbox/webhooks",
  );
  const entry = body.deliveries.find((d) => d.event_id === delivered.body.id)!;
  assert.deepEqual(
    { state: entry.state, attempts: entry.attempts, last_status: entry.last_status },
    { state: "delivered", attempts: 3, last_status: 200 },
  );
});

test("delivery gives up after the bounded number of attempts, also when the receiver is unreachable", async (t) => {
  const { receiver, sandbox } = await sandboxWithReceiver(t, { webhookRetryBaseMs: 5, webhookMaxAttempts: 3 }, () => 500);
  const record = sandbox.context.webhooks.send("data-changed", {
    integration_id: "x:y",
    integration_tool: "x",
    integration_category: "ATS",
    changed_models: [],
  });
  await waitUntil(() => record.state === "failed");
  assert.equal(record.attempts, 3);
  assert.equal(record.last_status, 500);
  assert.equal(receiver.received.length, 3);

  await admin(sandbox, "PUT", "/sandbox/config", { webhook_url: "http://127.0.0.1:9/nowhere" });
  const unreachable = sandbox.context.webhooks.send("data-changed", {
    integration_id: "x:y",
    integration_tool: "x",
    integration_category: "ATS",
    changed_models: [],
  });
  await waitUntil(() => unreachable.state === "failed");
  assert.equal(unreachable.attempts, 3);
  assert.equal(unreachable.last_status, null);
  assert.ok(unreachable.last_error);
});

test("without a receiver nothing is sent, but the event is logged as not_sent", async (t) => {
  const sandbox = await startSandbox();
  t.after(() => sandbox.close());
  await sdkFor(sandbox).general.triggerSync({ type: "FULL" });
  await waitUntil(() => sandbox.context.webhooks.deliveries().some((d) => d.type === "data-changed"));
  const { body } = await admin<{ deliveries: { type: string; state: string; target: string | null; attempts: number }[] }>(
    sandbox,
    "GET",
    "/sandbox/webhooks",
  );
  assert.deepEqual(
    body.deliveries.map((d) => [d.type, d.state, d.target, d.attempts]),
    [
      ["sync-finished", "not_sent", null, 0],
      ["data-changed", "not_sent", null, 0],
    ],
  );
});

test("force-sync ends with sync-finished, then data-changed; DELTA reports what changed since", async (t) => {
  const { receiver, sandbox } = await sandboxWithReceiver(t);
  const kombo = sdkFor(sandbox);
  const { data } = await kombo.general.triggerSync({ type: "FULL" });
  const finished = await receiver.waitFor((r) => r.body.type === "sync-finished");
  assert.equal(finished.path, "/hooks/sync-finished");
  assert.equal(finished.body.data["sync_id"], data.sync_id);
  assert.equal(finished.body.data["sync_state"], "SUCCEEDED");
  assert.equal(finished.body.data["integration_id"], sandbox.demoIntegrationId);
  assert.deepEqual(finished.body.data["end_user"], {
    organization_name: "Demo Organisation",
    creator_email: "demo@hirebridge.local",
    origin_id: sandbox.demoOrgId,
  });
  const changed = await receiver.waitFor((r) => r.body.type === "data-changed");
  assert.ok((changed.body.data["changed_models"] as { name: string }[]).some((m) => m.name === "ats_applications"));

  // A job added in the ATS, then a DELTA sync: data-changed names exactly the job models.
  await admin(sandbox, "POST", `/sandbox/integrations/${encodeURIComponent(sandbox.demoIntegrationId)}/jobs`, { name: "Night Nurse" });
  const before = receiver.received.length;
  await kombo.general.triggerSync({ type: "DELTA" });
  const deltaFinished = await receiver.waitFor((r) => r.body.type === "sync-finished" && r.body.data["sync_id"] !== data.sync_id);
  assert.equal(deltaFinished.body.data["sync_state"], "SUCCEEDED");
  const afterDelta = await receiver.waitFor(
    (r) => receiver.received.indexOf(r) > receiver.received.indexOf(deltaFinished) && r.body.type === "data-changed",
  );
  assert.ok(receiver.received.length > before);
  assert.deepEqual(afterDelta.body.data["changed_models"], [
    { name: "ats_jobs" },
    { name: "ats_application_stages" },
    { name: "ats_join_jobs_application_stages" },
  ]);
});

test("state changes, deletions and a failed connection flow send their events", async (t) => {
  const { receiver, sandbox } = await sandboxWithReceiver(t);
  const id = encodeURIComponent(sandbox.demoIntegrationId);
  await admin(sandbox, "PUT", `/sandbox/integrations/${id}/state`, { state: "INVALID" });
  const state = await receiver.waitFor((r) => r.body.type === "integration-state-changed");
  assert.equal(state.path, "/hooks/integration-state-changed");
  assert.deepEqual(
    { ...state.body.data, updated_at: "" },
    {
      integration_tool: "greenhouse",
      integration_id: sandbox.demoIntegrationId,
      integration_category: "ATS",
      end_user: { organization_name: "Demo Organisation", creator_email: "demo@hirebridge.local", origin_id: sandbox.demoOrgId },
      qa_status: "PASSED",
      setup_status: "COMPLETED",
      state: "INVALID",
      updated_at: "",
    },
  );

  const link = await sdkFor(sandbox, null).connect.createConnectionLink({
    end_user_email: "a@b.example",
    end_user_organization_name: "B",
    integration_category: "ATS",
  });
  const token = link.data.link.split("/").at(-1)!;
  const res = await fetch(`${sandbox.origin}/connect/link/${token}/fail`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ tool_id: "lever" }),
  });
  assert.equal(res.status, 200);
  const failed = await receiver.waitFor((r) => r.body.type === "connection-flow-failed");
  assert.deepEqual(failed.body.data, {
    integration_tool: "lever",
    integration_category: "ATS",
    end_user: { organization_name: "B", creator_email: "a@b.example", origin_id: null },
    log_url: `${sandbox.origin}/sandbox/webhooks`,
  });

  await sdkFor(sandbox, null).general.deleteIntegration({ integration_id: sandbox.demoIntegrationId, body: {} });
  const deleted = await receiver.waitFor((r) => r.body.type === "integration-deleted");
  assert.equal(deleted.body.data["id"], sandbox.demoIntegrationId);
  assert.match(String(deleted.body.data["deleted_at"]), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
});

/** Each event kind, as the SDK's own payload schemas (strict enums, datetimes) parse it. */
const SDK_SCHEMAS: Record<string, { parse(v: unknown): unknown }> = {
  "data-changed": DataChangedWebhookPayload$inboundSchema,
  "sync-finished": SyncFinishedWebhookPayload$inboundSchema,
  "integration-created": IntegrationCreatedWebhookPayload$inboundSchema,
  "integration-deleted": IntegrationDeletedWebhookPayload$inboundSchema,
  "connection-flow-failed": ConnectionFlowFailedWebhookPayload$inboundSchema,
  "integration-state-changed": IntegrationStateChangedWebhookPayload$inboundSchema,
};

test("every event kind parses with the SDK's webhook payload schemas", async (t) => {
  const { receiver, sandbox } = await sandboxWithReceiver(t);
  const kombo = sdkFor(sandbox, null);
  await sdkFor(sandbox).general.triggerSync({ type: "FULL" });
  const { data } = await kombo.connect.createConnectionLink({
    end_user_email: "a@b.example",
    end_user_organization_name: "B",
    integration_category: "ATS",
  });
  await fetch(`${data.link}/fail`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ tool_id: "ashby" }),
  });
  await fetch(`${data.link}/confirm`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ tool_id: "ashby" }),
  });
  await admin(sandbox, "PUT", `/sandbox/integrations/${encodeURIComponent(sandbox.demoIntegrationId)}/state`, { qa_status: "FAILED" });
  await kombo.general.deleteIntegration({ integration_id: sandbox.demoIntegrationId, body: {} });
  await waitUntil(() => new Set(receiver.received.map((r) => r.body.type)).size === 6);
  for (const r of receiver.received) {
    assert.equal(r.path, `/hooks/${r.body.type}`);
    assert.doesNotThrow(() => SDK_SCHEMAS[r.body.type]!.parse(r.body), `${r.body.type}: ${r.raw}`);
  }
});

async function waitUntil(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}
