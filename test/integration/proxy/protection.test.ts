import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { OPERATIONS, type OperationName } from "../../../src/services/proxy/operations/operations.table.js";
import { describeEachDatabase } from "../../helpers/db.js";
import { sample, sampleIds, type SampleIds } from "./operation-samples.js";
import { startProxyHarness, upstreamCalls, type ProxyHarness } from "./proxy-harness.js";

const NAMES = Object.keys(OPERATIONS) as OperationName[];
const SCOPED = NAMES.filter((n) => OPERATIONS[n].tenancy !== "none");

describeEachDatabase("proxy: authentication and tenancy", (getDb) => {
  let h: ProxyHarness;
  let ids: SampleIds;
  before(async () => {
    h = await startProxyHarness(getDb());
    ids = await sampleIds(h);
  });
  after(() => h?.close());

  test("every operation answers 401 without a valid bearer token and sends nothing upstream", async () => {
    h.seen.length = 0;
    const [header, payload, signature] = h.demo.accessToken.split(".");
    const tampered = `${header}.${payload}.${signature!.slice(0, -4)}AAAA`;
    for (const name of NAMES) {
      const s = sample(name, h.sandbox.demoIntegrationId, ids);
      for (const token of [null, "not-a-jwt", tampered]) {
        const res = await h.call(s.method, s.url, { token, payload: s.payload });
        assert.equal(res.statusCode, 401, `${name} with ${token === null ? "no" : "a bad"} token`);
        assert.match(String(res.headers["www-authenticate"]), /^Bearer error="invalid_token"/);
        const body = res.json() as { detail: unknown };
        assert.equal(typeof body.detail, "string");
      }
    }
    assert.deepEqual(upstreamCalls(h.seen), []);
  });

  test("an unknown integration answers 404 on every operation that names one, and no operation reaches the upstream", async () => {
    h.seen.length = 0;
    const unknown = "greenhouse:doesNotExist0000000000000";
    for (const name of SCOPED) {
      const s = sample(name, unknown, ids);
      const res = await h.call(s.method, s.url, { payload: s.payload });
      assert.equal(res.statusCode, 404, name);
      assert.deepEqual(res.json(), { detail: "Integration not found" }, name);
    }
    // The only upstream traffic is the ownership lookup of the unknown id (the upstream says 404 too).
    const calls = upstreamCalls(h.seen);
    assert.ok(calls.length >= 1);
    for (const c of calls) assert.equal(`${c.method} ${c.url}`, `GET /v1/integrations/${encodeURIComponent(unknown)}`);
  });

  test("another organisation's integration answers 404 and nothing of it reaches the caller, before and after its owner used it", async () => {
    h.seen.length = 0;
    const first = sample("listJobs", h.sandbox.demoIntegrationId, ids);
    const res = await h.call(first.method, first.url, { token: h.other.accessToken });
    assert.equal(res.statusCode, 404);
    assert.deepEqual(res.json(), { detail: "Integration not found" });
    // Looking up its owner is the only call; the upstream's details (with its origin id) stay inside.
    assert.deepEqual(
      upstreamCalls(h.seen).map((c) => `${c.method} ${c.url}`),
      [`GET /v1/integrations/${h.integration}`],
    );
    assert.equal(await h.deps.integrations.find(h.sandbox.demoIntegrationId), null, "a foreign org does not adopt it");

    // Its owner adopts it (end_user.origin_id is the owner's org) and it is recorded for that org.
    const own = await h.call(first.method, first.url);
    assert.equal(own.statusCode, 200);
    const row = await h.deps.integrations.find(h.sandbox.demoIntegrationId);
    assert.equal(row?.orgId, h.demo.orgId);
    assert.equal(row?.tool, "greenhouse");
    assert.equal(row?.category, "ATS");

    h.seen.length = 0;
    for (const name of SCOPED) {
      const s = sample(name, h.sandbox.demoIntegrationId, ids);
      const foreign = await h.call(s.method, s.url, { token: h.other.accessToken, payload: s.payload });
      assert.equal(foreign.statusCode, 404, name);
      assert.deepEqual(foreign.json(), { detail: "Integration not found" }, name);
    }
    assert.deepEqual(upstreamCalls(h.seen), [], "a recorded owner needs no upstream lookup");
  });

  test("a token without an organisation cannot reach integrations or create links (403)", async () => {
    // The token service always sets org_id; the verifier is wrapped to take it away, as a token of
    // an identity provider without the org mapper would arrive.
    const { buildProxyWithSync } = await import("../../../src/runtime/wiring.js");
    const { silentLogger, testConfig } = await import("../../helpers/config.js");
    const app = await buildProxyWithSync({
      config: testConfig({ UPSTREAM_BASE_URL: h.sandbox.url }),
      database: getDb(),
      logger: silentLogger(),
      verify: async (token) => ({ ...(await h.identity.verify(token)), orgId: null }),
    });
    try {
      for (const name of ["listJobs", "getIntegration", "createConnectLink", "activateConnection"] as const) {
        const s = sample(name, h.sandbox.demoIntegrationId, ids);
        const res = await app.inject({
          method: s.method,
          url: s.url,
          headers: { authorization: `Bearer ${h.demo.accessToken}` },
          ...(s.payload ? { payload: s.payload as object } : {}),
        });
        assert.equal(res.statusCode, 403, name);
        assert.deepEqual(res.json(), { detail: "The access token carries no organisation (org_id claim)" });
      }
      const tools = await app.inject({ url: "/api/v1/general/tools/hris", headers: { authorization: `Bearer ${h.demo.accessToken}` } });
      assert.equal(tools.statusCode, 200, "operations that name no integration need no organisation");
    } finally {
      await app.close();
    }
  });

  test("a deleted integration answers 404 from then on, for its own organisation too", async () => {
    const created = await fetch(`${h.sandbox.origin}/sandbox/integrations`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ org_id: h.demo.orgId, applications: 3 }),
    });
    const { id } = (await created.json()) as { id: string };
    const del = await h.call("DELETE", `/api/v1/integrations/${encodeURIComponent(id)}`);
    assert.equal(del.statusCode, 200);
    assert.deepEqual(del.json(), { status: "success", data: {} });
    const row = await h.deps.integrations.find(id);
    assert.ok(row?.deletedAt instanceof Date, "soft-deleted locally");
    h.seen.length = 0;
    const again = await h.call("GET", `/api/v1/ats/jobs?integration_id=${encodeURIComponent(id)}`);
    assert.equal(again.statusCode, 404);
    assert.deepEqual(again.json(), { detail: "Integration not found" });
    assert.deepEqual(upstreamCalls(h.seen), []);
  });
});
