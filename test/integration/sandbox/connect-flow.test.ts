/**
 * The connect flow end to end over HTTP: create-link → the page → a person confirms → the
 * integration exists for the link's end user, integration-created reaches the receiver, and the
 * activation token answers integration-by-token. Relink re-activates an integration.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { KomboAtsError, KomboGeneralError } from "@kombo-api/sdk/models/errors";
import { startSandbox } from "../../helpers/sandbox.js";
import { sandboxWithReceiver } from "./receiver.js";
import { admin, collectPages, sdkFor } from "./sdk.js";

const json = (body: unknown) => ({ method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

test("create-link → page → confirm → integration, integration-created webhook, integration-by-token", async (t) => {
  const { receiver, sandbox } = await sandboxWithReceiver(t);
  const kombo = sdkFor(sandbox, null);
  const { data } = await kombo.connect.createConnectionLink({
    end_user_email: "hr@acme.example",
    end_user_organization_name: "Acme <Recruiting>",
    end_user_origin_id: "0b6f7a54-3a8f-4a36-9d5e-5d2f7c3f8f11",
    integration_category: "ATS",
  });
  const page = await fetch(data.link);
  assert.equal(page.status, 200);
  assert.equal(page.headers.get("content-type"), "text/html; charset=utf-8");
  const html = await page.text();
  assert.match(html, /Acme &lt;Recruiting&gt;/, "the organisation name is shown, escaped");
  assert.match(html, /value="greenhouse"/);
  assert.match(html, /value="lever"/);
  assert.doesNotMatch(html, /value="bamboohr"/, "only tools of the link's category");

  const confirm = await fetch(`${data.link}/confirm`, json({ tool_id: "lever" }));
  assert.equal(confirm.status, 200);
  const { activation_token, integration_id } = (await confirm.json()) as { activation_token: string; integration_id: string };
  assert.match(integration_id, /^lever:[1-9A-HJ-NP-Za-km-z]{24}$/);

  const created = await receiver.waitFor((r) => r.body.type === "integration-created");
  assert.equal(created.path, "/hooks/integration-created");
  assert.deepEqual(created.body.data, {
    id: integration_id,
    tool: "lever",
    category: "ATS",
    end_user: {
      organization_name: "Acme <Recruiting>",
      creator_email: "hr@acme.example",
      origin_id: "0b6f7a54-3a8f-4a36-9d5e-5d2f7c3f8f11",
    },
  });

  const byToken = await kombo.connect.getIntegrationByToken({ token: activation_token });
  assert.deepEqual(byToken.data, {
    tool: "lever",
    id: integration_id,
    end_user_origin_id: "0b6f7a54-3a8f-4a36-9d5e-5d2f7c3f8f11",
    end_user_organization_name: "Acme <Recruiting>",
    end_user_email: "hr@acme.example",
    setup_status: "COMPLETED",
  });

  // The new integration is usable at once, with its own data, and its first sync reports in.
  const jobs = await collectPages(await sdkFor(sandbox, integration_id).ats.getJobs());
  assert.ok(jobs.results.length >= 3);
  const firstSync = await receiver.waitFor((r) => r.body.type === "sync-finished" && r.body.data["integration_id"] === integration_id);
  assert.equal(firstSync.body.data["sync_state"], "SUCCEEDED");
  const { body } = await admin<{ integrations: { id: string; end_user: { origin_id: string } }[] }>(
    sandbox,
    "GET",
    "/sandbox/integrations",
  );
  assert.deepEqual(
    body.integrations.map((i) => i.id),
    [sandbox.demoIntegrationId, integration_id],
  );

  // A link works once.
  const again = await fetch(`${data.link}/confirm`, json({ tool_id: "lever" }));
  assert.equal(again.status, 409);
  assert.deepEqual(await again.json(), {
    status: "error",
    error: { code: "PLATFORM.INPUT_INVALID", title: null, message: "The link was already used.", log_url: null },
  });
  assert.equal((await fetch(data.link)).status, 409);
});

test("a pre-selected tool is the only choice; unknown links are 404; bad choices are 400", async (t) => {
  const sandbox = await startSandbox();
  t.after(() => sandbox.close());
  const kombo = sdkFor(sandbox, null);
  const { data } = await kombo.connect.createConnectionLink({
    end_user_email: "a@b.example",
    end_user_organization_name: "B",
    integration_category: "ATS",
    integration_tool: "workable",
  });
  const html = await (await fetch(data.link)).text();
  assert.match(html, /value="workable" checked/);
  assert.match(html, /value="lever" disabled/);
  const confirm = await fetch(`${data.link}/confirm`, json({}));
  assert.match(((await confirm.json()) as { integration_id: string }).integration_id, /^workable:/);

  assert.equal((await fetch(`${sandbox.origin}/connect/link/not-a-token`)).status, 404);
  const hris = await kombo.connect.createConnectionLink({ end_user_email: "a@b.example", end_user_organization_name: "B" });
  const wrong = await fetch(`${hris.data.link}/confirm`, json({ tool_id: "greenhouse" }));
  assert.equal(wrong.status, 400, "greenhouse is not an HRIS tool (create-link defaults to HRIS)");
  await assert.rejects(
    kombo.connect.createConnectionLink({
      end_user_email: "a@b.example",
      end_user_organization_name: "B",
      integration_category: "ATS",
      integration_tool: "bamboohr",
    }),
    (err: unknown) => err instanceof KomboGeneralError && err.statusCode === 400 && err.error.code === "PLATFORM.INPUT_INVALID",
  );
});

test("an HRIS integration has no ATS models", async (t) => {
  const sandbox = await startSandbox();
  t.after(() => sandbox.close());
  const { data } = await sdkFor(sandbox, null).connect.createConnectionLink({
    end_user_email: "a@b.example",
    end_user_organization_name: "B",
  });
  const { integration_id } = (await (await fetch(`${data.link}/confirm`, json({ tool_id: "personio" }))).json()) as {
    integration_id: string;
  };
  await assert.rejects(
    sdkFor(sandbox, integration_id).ats.getJobs(),
    (err: unknown) => err instanceof KomboAtsError && err.error.code === "INTEGRATION.MODEL_NOT_AVAILABLE",
  );
});

test("relink: the link re-activates an invalid integration and tells the receiver", async (t) => {
  const { receiver, sandbox } = await sandboxWithReceiver(t);
  const id = sandbox.demoIntegrationId;
  await admin(sandbox, "PUT", `/sandbox/integrations/${encodeURIComponent(id)}/state`, { state: "INVALID" });
  await assert.rejects(
    sdkFor(sandbox).ats.getJobs(),
    (err: unknown) => err instanceof KomboAtsError && err.error.code === "INTEGRATION.AUTHENTICATION_INVALID",
  );

  const { data } = await sdkFor(sandbox, null).general.createReconnectionLink({ integration_id: id, body: { link_type: "EMBEDDED" } });
  const html = await (await fetch(data.link)).text();
  assert.match(html, /Reconnect your integration/);
  const res = (await (await fetch(`${data.link}/confirm`, json({}))).json()) as { integration_id: string; activation_token: string };
  assert.equal(res.integration_id, id);
  await waitFor(() => receiver.received.filter((r) => r.body.type === "integration-state-changed").length === 2);
  assert.deepEqual(
    receiver.received.filter((r) => r.body.type === "integration-state-changed").map((r) => r.body.data["state"]),
    ["INVALID", "ACTIVE"],
  );
  assert.equal((await sdkFor(sandbox).ats.getJobs()).result.data.results.length > 0, true);
});

async function waitFor(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}
