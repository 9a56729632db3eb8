import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { describeEachDatabase } from "../../helpers/db.js";
import { sample, sampleIds, type SampleIds } from "./operation-samples.js";
import { sandboxGet, startProxyHarness, upstreamCalls, upstreamGet, upstreamList, type ProxyHarness } from "./proxy-harness.js";

type AdminApplication = {
  current_stage: { id: string } | null;
  notes: { content: string; content_type: string }[];
  result_links: { label: string; url: string; details: unknown }[];
};

describeEachDatabase("proxy: every operation against the sandbox", (getDb) => {
  let h: ProxyHarness;
  let ids: SampleIds;
  let q: string;
  before(async () => {
    h = await startProxyHarness(getDb());
    ids = await sampleIds(h);
    q = `integration_id=${h.integration}`;
  });
  after(() => h?.close());

  /** The proxy's answer equals, byte for byte, the upstream's answer to the translated request. */
  async function assertPassthrough(proxyUrl: string, upstreamPath: string) {
    h.seen.length = 0;
    const res = await h.call("GET", proxyUrl);
    const direct = await upstreamGet(h, upstreamPath);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.body, direct.body);
    assert.match(String(res.headers["content-type"]), /^application\/json/);
    const calls = upstreamCalls(h.seen).filter((c) => !c.url.startsWith("/v1/integrations/") || upstreamPath.startsWith("/integrations/"));
    assert.equal(calls.at(-1)?.url, `/v1${upstreamPath}`, "the request the upstream received");
    return res;
  }

  test("general: check-api-key and tools pass the upstream's answers through", async () => {
    await assertPassthrough(`/api/v1/general/check-api-key?${q}`, "/check-api-key");
    for (const category of ["hris", "ats", "assessment"])
      await assertPassthrough(`/api/v1/general/tools/${category}`, `/tools/${category}`);
  });

  /** Waits until the sandbox has no sync pending for the demo integration (a new one is queued, not merged). */
  async function syncFinished() {
    for (let i = 0; i < 100; i++) {
      const state = await sandboxGet<{ sync: { pending: unknown } }>(h.sandbox, `/sandbox/integrations/${h.integration}`);
      if (!state.sync.pending) return;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error("the sandbox's sync did not finish");
  }

  test("general: force-sync sends the query's type in the body, DELTA by default, with X-Integration-Id", async () => {
    h.seen.length = 0;
    const full = await h.call("POST", `/api/v1/general/force-sync?${q}&type=FULL`, { payload: { note: "from a test" } });
    assert.equal(full.statusCode, 200, full.body);
    assert.equal(full.json().data.type, "FULL");
    await syncFinished();
    // The upstream's own default is FULL, so DELTA here can only come from the proxy.
    const delta = await h.call("POST", `/api/v1/general/force-sync?${q}`);
    assert.equal(delta.statusCode, 200, delta.body);
    const body = delta.json() as { status: string; data: { already_queued: boolean; sync_id: string; type: string } };
    assert.equal(body.status, "success");
    assert.equal(body.data.type, "DELTA");
    assert.equal(typeof body.data.sync_id, "string");
    const calls = upstreamCalls(h.seen).filter((c) => c.url === "/v1/force-sync");
    assert.equal(calls.length, 2);
    for (const c of calls) assert.equal(c.headers["x-integration-id"], h.sandbox.demoIntegrationId);
  });

  test("integrations: details, fields and custom fields pass through, page_size up to 2000 on fields", async () => {
    const i = h.integration;
    await assertPassthrough(`/api/v1/integrations/${i}?bypass_cache=true`, `/integrations/${i}`);
    await assertPassthrough(
      `/api/v1/integrations/${i}/integration-fields?page_size=2`,
      `/integrations/${i}/integration-fields?page_size=2`,
    );
    await assertPassthrough(
      `/api/v1/integrations/${i}/integration-fields?page_size=2000`,
      `/integrations/${i}/integration-fields?page_size=2000`,
    );
    await assertPassthrough(`/api/v1/integrations/${i}/custom-fields?page_size=250`, `/integrations/${i}/custom-fields?page_size=250`);
    const first = (await h.call("GET", `/api/v1/integrations/${i}/custom-fields?page_size=1`)).json() as { data: { next: string } };
    await assertPassthrough(
      `/api/v1/integrations/${i}/custom-fields?page_size=1&cursor=${encodeURIComponent(first.data.next)}`,
      `/integrations/${i}/custom-fields?page_size=1&cursor=${encodeURIComponent(first.data.next)}`,
    );
  });

  test("integrations: field passthrough and custom-field mapping are updated upstream", async () => {
    const patch = sample("updateIntegrationField", h.sandbox.demoIntegrationId, ids);
    const res = await h.call(patch.method, patch.url, { payload: patch.payload });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().data.id, ids.fieldId);
    assert.equal(res.json().data.is_passthrough_enabled, true);
    const fields = await upstreamList<{ id: string; is_passthrough_enabled: boolean }>(
      h,
      `/integrations/${h.integration}/integration-fields?page_size=2000`,
    );
    assert.equal(fields.find((f) => f.id === ids.fieldId)?.is_passthrough_enabled, true);

    const put = sample("updateCustomFieldMapping", h.sandbox.demoIntegrationId, ids);
    const mapped = await h.call(put.method, put.url, { payload: put.payload });
    assert.equal(mapped.statusCode, 200, mapped.body);
    assert.equal(mapped.json().data.integration_field.id, ids.fieldId);
  });

  test("integrations: relink answers a link", async () => {
    const s = sample("relinkIntegration", h.sandbox.demoIntegrationId, ids);
    const res = await h.call(s.method, s.url, { payload: s.payload });
    assert.equal(res.statusCode, 200, res.body);
    assert.match(res.json().data.link, new RegExp(`^${h.sandbox.origin}/connect/link/`));
  });

  test("ats: lists pass through with the spec's filters translated to the upstream's names", async () => {
    const [app] = await upstreamList<{ id: string; job: { id: string } }>(h, "/ats/applications?page_size=1");
    await assertPassthrough(
      `/api/v1/ats/applications?${q}&outcome=PENDING&job_ids=${app!.job.id}&page_size=5`,
      `/ats/applications?outcomes=PENDING&job_ids=${app!.job.id}&page_size=5`,
    );
    await assertPassthrough(
      `/api/v1/ats/jobs?${q}&job_status=OPEN&employment_type=FULL_TIME&page_size=3`,
      "/ats/jobs?statuses=OPEN&employment_types=FULL_TIME&page_size=3",
    );
    await assertPassthrough(`/api/v1/ats/users?${q}&email=NOBODY%40example.com`, "/ats/users?emails=NOBODY%40example.com");
    await assertPassthrough(`/api/v1/ats/offers?${q}&status=SENT&page_size=2`, "/ats/offers?statuses=SENT&page_size=2");
    await assertPassthrough(`/api/v1/ats/tags?${q}&include_deleted=true`, "/ats/tags?include_deleted=true");
    await assertPassthrough(`/api/v1/ats/application-stages?${q}&job_ids=${app!.job.id}`, `/ats/application-stages?job_ids=${app!.job.id}`);
    await assertPassthrough(
      `/api/v1/ats/rejection-reasons?${q}&updated_after=2020-01-01T00%3A00%3A00.000Z`,
      "/ats/rejection-reasons?updated_after=2020-01-01T00%3A00%3A00.000Z",
    );
    await assertPassthrough(`/api/v1/ats/interviews?${q}&application_ids=${app!.id}`, `/ats/interviews?application_ids=${app!.id}`);
    await assertPassthrough(
      `/api/v1/ats/applications/${ids.applicationId}/attachments?${q}`,
      `/ats/applications/${ids.applicationId}/attachments`,
    );
    // Empty values are not forwarded; integration_id never is (it travels as X-Integration-Id).
    await assertPassthrough(`/api/v1/ats/jobs?${q}&cursor=&page_size=&ids=`, "/ats/jobs");
    const last = upstreamCalls(h.seen).at(-1)!;
    assert.equal(last.headers["x-integration-id"], h.sandbox.demoIntegrationId);
  });

  test("ats: a list can be paged to its end through the proxy", async () => {
    const direct = await upstreamList<{ id: string }>(h, "/ats/applications?page_size=250");
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const url: string = `/api/v1/ats/applications?${q}&page_size=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
      const page = (await h.call("GET", url)).json() as { data: { next: string | null; results: { id: string }[] } };
      seen.push(...page.data.results.map((r) => r.id));
      cursor = page.data.next;
    } while (cursor);
    assert.deepEqual(
      seen,
      direct.map((a) => a.id),
    );
  });

  test("ats: stage move, result link and note are written to the application", async () => {
    for (const name of ["moveApplicationStage", "addApplicationResultLink", "addApplicationNote"] as const) {
      const s = sample(name, h.sandbox.demoIntegrationId, ids);
      const res = await h.call(s.method, s.url, { payload: s.payload });
      assert.equal(res.statusCode, 200, `${name}: ${res.body}`);
      assert.deepEqual(res.json(), { status: "success", data: {}, warnings: [] });
    }
    const detailed = await h.call("POST", `/api/v1/ats/applications/${ids.applicationId}/result-links?${q}`, {
      payload: {
        label: "Scorecard",
        url: "https://hirebridge.example/r/2",
        details: { custom_field_name_prefix: "hb_", attributes: [{ key: "score", value: "87" }] },
      },
    });
    assert.equal(detailed.statusCode, 200, detailed.body);
    const app = await sandboxGet<AdminApplication>(h.sandbox, `/sandbox/integrations/${h.integration}/applications/${ids.applicationId}`);
    assert.equal(app.current_stage?.id, ids.stageId);
    assert.deepEqual(
      app.notes.map((n) => [n.content, n.content_type]),
      [["Strong candidate", "PLAIN_TEXT"]],
    );
    assert.deepEqual(
      app.result_links.map((l) => [l.label, l.url, l.details]),
      [
        ["AI interview", "https://hirebridge.example/r/1", null],
        ["Scorecard", "https://hirebridge.example/r/2", { custom_field_name_prefix: "hb_", attributes: [{ key: "score", value: "87" }] }],
      ],
    );
  });

  test("ats: a candidate tag is added and removed (JSON body on DELETE)", async () => {
    const tagsOf = async () =>
      (await upstreamList<{ tags: { name: string }[] }>(h, `/ats/candidates?ids=${ids.candidateId}`))[0]!.tags.map((t) => t.name);
    const add = sample("addCandidateTag", h.sandbox.demoIntegrationId, ids);
    assert.equal((await h.call(add.method, add.url, { payload: add.payload })).statusCode, 200);
    assert.ok((await tagsOf()).includes("ai-screened"));
    const remove = sample("removeCandidateTag", h.sandbox.demoIntegrationId, ids);
    const res = await h.call(remove.method, remove.url, { payload: remove.payload });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { status: "success", data: {}, warnings: [] });
    assert.ok(!(await tagsOf()).includes("ai-screened"));
  });

  test("ats: an application is created for a job, its source name sent as the upstream's source object", async () => {
    const res = await h.call("POST", `/api/v1/ats/jobs/${ids.openJobId}/applications?${q}`, {
      payload: {
        candidate: { first_name: "Grace", last_name: "Hopper", email_address: "grace@example.com", company: null },
        source: "Hirebridge",
        stage_id: null,
      },
    });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json() as {
      data: { id: string; job: { id: string }; candidate: { first_name: string; source: string } };
      warnings: unknown[];
    };
    assert.equal(body.data.job.id, ids.openJobId);
    assert.equal(body.data.candidate.first_name, "Grace");
    assert.equal(body.data.candidate.source, "Hirebridge");
    assert.deepEqual(body.warnings, []);
    const listed = await upstreamList<{ id: string }>(h, `/ats/applications?ids=${body.data.id}`);
    assert.equal(listed.length, 1);
  });

  test("upstream 4xx answers pass through with their status and error envelope", async () => {
    const res = await h.call("PUT", `/api/v1/ats/applications/${ids.applicationId}/stage?${q}`, { payload: { stage_id: "no-such-stage" } });
    assert.equal(res.statusCode, 400);
    const body = res.json() as { status: string; error: { code: string; message: string } };
    assert.equal(body.status, "error");
    assert.equal(body.error.code, "PLATFORM.INPUT_INVALID");
    const missingApp = await h.call("POST", `/api/v1/ats/applications/nope/notes?${q}`, { payload: { content: "x" } });
    assert.equal(missingApp.statusCode, 404);
    assert.equal(missingApp.json().status, "error");
  });
});
