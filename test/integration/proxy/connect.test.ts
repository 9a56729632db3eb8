import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { describeEachDatabase } from "../../helpers/db.js";
import { sandboxGet, startProxyHarness, upstreamCalls, upstreamGet, type ProxyHarness } from "./proxy-harness.js";

type SandboxIntegration = {
  id: string;
  tool: string;
  category: string;
  state: string;
  end_user: { origin_id: string | null; organization_name: string };
};

describeEachDatabase("proxy: connect flow", (getDb) => {
  let h: ProxyHarness;
  before(async () => {
    h = await startProxyHarness(getDb());
  });
  after(() => h?.close());

  /** What the person in the embedded flow does: picks a tool on the link's page and confirms. */
  async function confirmLink(link: string, toolId: string): Promise<{ activation_token: string; integration_id: string }> {
    const res = await fetch(`${link}/confirm`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ tool_id: toolId }),
    });
    assert.equal(res.status, 200, await res.clone().text());
    return (await res.json()) as { activation_token: string; integration_id: string };
  }

  async function createLink(payload: Record<string, unknown>, token = h.demo.accessToken) {
    return h.call("POST", "/api/v1/connect/create-link", {
      token,
      payload: { end_user_email: "it@acme.example", end_user_organization_name: "Acme", ...payload },
    });
  }

  test("create-link → confirm → activate records the integration for the caller's org, and it is usable at once", async () => {
    const created = await createLink({ integration_category: "ATS", language: null, enable_filtering: null, link_type: null });
    assert.equal(created.statusCode, 200, created.body);
    const link = (created.json() as { status: string; data: { link: string } }).data.link;
    assert.match(link, new RegExp(`^${h.sandbox.origin}/connect/link/`));

    const { activation_token, integration_id } = await confirmLink(link, "greenhouse");
    // The link carried the caller's organisation as end_user_origin_id, though the body named none.
    const upstreamView = await sandboxGet<SandboxIntegration>(h.sandbox, `/sandbox/integrations/${encodeURIComponent(integration_id)}`);
    assert.equal(upstreamView.end_user.origin_id, h.demo.orgId);
    assert.equal(upstreamView.category, "ATS");

    const exchanged = await upstreamGet(h, `/connect/integration-by-token/${activation_token}`);
    const res = await h.call("POST", "/api/v1/connect/activate", { payload: { activation_token } });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.body, exchanged.body, "the upstream's answer, unchanged");
    assert.equal((res.json() as { data: { id: string } }).data.id, integration_id);

    const row = await h.deps.integrations.find(integration_id);
    assert.equal(row?.orgId, h.demo.orgId);
    assert.equal(row?.tool, "greenhouse");
    assert.equal(row?.deletedAt, null);
    // Its state comes from the upstream at once, not from the next poll or state webhook.
    assert.equal(row?.status, upstreamView.state);
    assert.equal(row?.status, "ACTIVE");
    assert.equal(row?.category, "ATS");

    h.seen.length = 0;
    const jobs = await h.call("GET", `/api/v1/ats/jobs?integration_id=${encodeURIComponent(integration_id)}&page_size=1`);
    assert.ok([200, 409].includes(jobs.statusCode), jobs.body); // 409 while the upstream's first sync runs
    assert.deepEqual(
      upstreamCalls(h.seen).map((c) => c.url.split("?")[0]),
      ["/v1/ats/jobs"],
      "no ownership lookup: the activation recorded the owner",
    );
    const foreign = await h.call("GET", `/api/v1/ats/jobs?integration_id=${encodeURIComponent(integration_id)}`, {
      token: h.other.accessToken,
    });
    assert.equal(foreign.statusCode, 404);
  });

  test("activating another organisation's integration is refused (403) and records nothing", async () => {
    const created = await createLink({ integration_category: "ATS" });
    const { activation_token, integration_id } = await confirmLink(created.json().data.link, "lever");
    const res = await h.call("POST", "/api/v1/connect/activate", { token: h.other.accessToken, payload: { activation_token } });
    assert.equal(res.statusCode, 403);
    assert.deepEqual(res.json(), { detail: "The integration was created for another organisation" });
    assert.equal(await h.deps.integrations.find(integration_id), null);
  });

  test("an unknown activation token passes the upstream's 404 through", async () => {
    const res = await h.call("POST", "/api/v1/connect/activate", { payload: { activation_token: "no-such-token" } });
    assert.equal(res.statusCode, 404);
    const body = res.json() as { status: string; error: { code: string } };
    assert.equal(body.status, "error");
    assert.equal(body.error.code, "PLATFORM.INPUT_INVALID");
  });

  test("create-link: end_user_origin_id may only name the caller's org (403 otherwise); filtering is HRIS only", async () => {
    const own = await createLink({ end_user_origin_id: h.demo.orgId.toUpperCase(), integration_category: "HRIS", enable_filtering: true });
    assert.equal(own.statusCode, 200, own.body);
    h.seen.length = 0;
    const other = await createLink({ end_user_origin_id: h.other.orgId });
    assert.equal(other.statusCode, 403);
    assert.deepEqual(other.json(), { detail: "end_user_origin_id must be the caller's organisation" });
    assert.deepEqual(upstreamCalls(h.seen), []);
    const filtering = await createLink({ enable_filtering: true, integration_category: "ASSESSMENT" });
    assert.equal(filtering.statusCode, 422);
    // Defaults: HRIS category, so filtering alone is fine.
    const defaults = await createLink({ enable_filtering: true });
    assert.equal(defaults.statusCode, 200, defaults.body);
  });

  test("a link created by another org's user carries that org, so the integration it creates is theirs", async () => {
    const created = await createLink({ integration_category: "ATS" }, h.other.accessToken);
    const { activation_token, integration_id } = await confirmLink(created.json().data.link, "greenhouse");
    const res = await h.call("POST", "/api/v1/connect/activate", { token: h.other.accessToken, payload: { activation_token } });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal((await h.deps.integrations.find(integration_id))?.orgId, h.other.orgId);
    const mine = await h.call("GET", `/api/v1/integrations/${encodeURIComponent(integration_id)}`);
    assert.equal(mine.statusCode, 404);
  });
});
