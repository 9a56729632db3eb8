import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { IntegrationSyncs } from "../../../src/contracts/proxy/webhooks.js";
import type { Application, Job } from "../../../src/contracts/upstream/index.js";
import { OPERATIONS, type OperationName } from "../../../src/services/proxy/operations/operations.table.js";
import { createAtsReader } from "../../../src/services/sync/ats-reader.js";
import { createSyncEngine } from "../../../src/services/sync/sync-engine.js";
import { createSyncStore } from "../../../src/services/recruiting/upstream/index.js";
import { findSyncRun } from "../../../src/services/sync/sync-runs.repository.js";
import { createUpstreamClient } from "../../../src/shared/upstream/upstream-client.js";
import { silentLogger } from "../../helpers/config.js";
import { describeEachDatabase } from "../../helpers/db.js";
import { call, eventually, startTestStack, type TestStack } from "../../helpers/stack.js";
import { sample } from "../proxy/operation-samples.js";

type Detail = { detail: { loc: (string | number)[]; msg: string; type: string }[] };
type SandboxApplication = { current_stage: { name: string } | null; notes: unknown[]; result_links: unknown[] };

/**
 * The tenant rule on every path to the upstream (issue 29, defect 1): org B names org A's
 * integration, jobs and applications everywhere an upstream id can be carried, over real HTTP
 * against the sandbox. Nothing reaches A's ATS, and nothing of A's shows up for B or among A's own
 * records.
 */
describeEachDatabase("upstream links across organisations", (getDb) => {
  let stack: TestStack;
  let a: { orgId: string; token: string };
  let b: { orgId: string; token: string };
  let integration: string;
  let job: Job;
  let application: Application;
  before(async () => {
    stack = await startTestStack(getDb(), { sandbox: { applications: 20, webhookUrl: undefined as never } });
    integration = stack.sandbox.demoIntegrationId;
    const loginA = await stack.login(stack.sandbox.demoOrgId);
    const loginB = await stack.login();
    a = { orgId: loginA.orgId, token: loginA.accessToken };
    b = { orgId: loginB.orgId, token: loginB.accessToken };
    const q = `integration_id=${encodeURIComponent(integration)}`;
    // A uses its integration through the proxy: recorded as A's (adopted from the upstream's origin id).
    const jobs = await call<{ data: { results: Job[] } }>(`${stack.proxyUrl}/ats/jobs?${q}&page_size=50`, { token: a.token });
    assert.equal(jobs.status, 200);
    const apps = await call<{ data: { results: Application[] } }>(`${stack.proxyUrl}/ats/applications?${q}&page_size=50`, {
      token: a.token,
    });
    job = jobs.body.data.results.find((j) => j.stages?.some((s) => s.name === "Offer"))!;
    application = apps.body.data.results.find((x) => x.job_id === job.id && x.current_stage?.name !== "Offer" && !x.remote_deleted_at)!;
    assert.ok(job && application, "a job of A with an Offer stage, and one of its applications elsewhere");
  });
  after(async () => {
    await stack.close();
  });

  const api = (path: string) => `${stack.apiUrl}/org/${b.orgId}${path}`;
  const inAts = async () =>
    (
      await call<SandboxApplication>(
        `${stack.sandbox.origin}/sandbox/integrations/${encodeURIComponent(integration)}/applications/${application.id}`,
      )
    ).body;
  const expectRefused = (res: { status: number; body: unknown }, loc: (string | number)[]) => {
    assert.equal(res.status, 422, JSON.stringify(res.body));
    assert.deepEqual(
      (res.body as Detail).detail.map((d) => [d.loc, d.type]),
      [[loc, "value_error"]],
    );
  };
  /** A link stored before links were checked (or by a bug): written straight into the tables. */
  const legacyLink = async (positionId: string, candidateId?: string, jobId = job.id) => {
    await getDb().query("update positions set upstream_integration_id = $1, upstream_job_id_id = $2 where id = $3", [
      integration,
      jobId,
      positionId,
    ]);
    if (candidateId) await getDb().query("update candidates set upstream_application_id = $1 where id = $2", [application.id, candidateId]);
  };

  test("defect 1's sequence as org B: refused where the links enter, and a link stored before writes nothing into A's ATS", async () => {
    const before = await inAts();
    // 1. B links a position to A's integration and job, moving passed candidates to Offer.
    const linked = {
      name: "Intruder",
      upstream_integration_id: integration,
      upstream_job_id_id: job.id,
      auto_update_stages: true,
      passed_stage: "Offer",
      min_score: 50,
    };
    expectRefused(await call(api("/position"), { method: "POST", token: b.token, body: linked }), ["body", "upstream_integration_id"]);
    // The same position stored anyway, as a link made before this check existed would be.
    const position = await call<{ id: string }>(api("/position"), {
      method: "POST",
      token: b.token,
      body: { ...linked, upstream_integration_id: null, upstream_job_id_id: null },
    });
    assert.equal(position.status, 200);
    await legacyLink(position.body.id);
    // 2. A candidate with A's application.
    const candidateBody = { name: "Mallory", email: "mallory@b.example", phone: "+1 555 0199", language: "en" };
    expectRefused(
      await call(api(`/positions/${position.body.id}/`), {
        method: "POST",
        token: b.token,
        body: { ...candidateBody, upstream_application_id: application.id },
      }),
      ["body", "upstream_application_id"],
    );
    const candidate = await call<{ id: string }>(api(`/positions/${position.body.id}/`), {
      method: "POST",
      token: b.token,
      body: candidateBody,
    });
    assert.equal(candidate.status, 200);
    await legacyLink(position.body.id, candidate.body.id);
    // 3. The interview completes with B's link, and is graded 99.
    const interview = api(`/positions/${position.body.id}/candidates/${candidate.body.id}/interview/`);
    const completed = { status: "completed", recording_link: "https://attacker.example/phish" };
    assert.equal((await call(interview, { method: "PUT", token: b.token, body: completed })).status, 200);
    assert.equal((await call(interview, { method: "PUT", token: b.token, body: { status: "graded", score: 99 } })).status, 200);

    // The write-back checks the integration's owner as it sends, and refuses.
    const wb = await eventually("the write-back to settle", async () => {
      const [row] = await getDb().query<{ state: string; last_error: string | null }>(
        "select state, last_error from write_backs where candidate_id = $1",
        [candidate.body.id],
      );
      return row && row.state !== "pending" ? row : undefined;
    });
    assert.deepEqual(wb, { state: "failed", last_error: "the integration does not belong to the position's organisation" });
    const after = await inAts();
    assert.deepEqual(after.current_stage, before.current_stage, "A's application was not moved");
    assert.equal(after.notes.length, before.notes.length, "no note of B's on A's application");
    assert.equal(after.result_links.length, before.result_links.length, "no link of B's on A's application");
    // Nor is B's write-back among A's.
    const syncs = await call<IntegrationSyncs>(`${stack.proxyUrl}/integrations/${encodeURIComponent(integration)}/syncs`, {
      token: a.token,
    });
    assert.equal(syncs.status, 200);
    assert.equal(
      syncs.body.write_backs.some((w) => w.candidate_id === candidate.body.id),
      false,
    );
  });

  test("sweep: every field and route that can carry an upstream id refuses another organisation's", async () => {
    const before = await inAts();
    // Recruiting API: a position's link, on create and update.
    const own = await call<{ id: string }>(api("/position"), { method: "POST", token: b.token, body: { name: "Sweep" } });
    assert.equal(own.status, 200);
    const link = { upstream_integration_id: integration, upstream_job_id_id: job.id };
    expectRefused(await call(api("/position"), { method: "POST", token: b.token, body: { name: "x", ...link } }), [
      "body",
      "upstream_integration_id",
    ]);
    expectRefused(await call(api(`/position/${own.body.id}`), { method: "PUT", token: b.token, body: link }), [
      "body",
      "upstream_integration_id",
    ]);
    // An integration id B could not know is refused the same way (no answer says whether it exists).
    expectRefused(
      await call(api("/position"), { method: "POST", token: b.token, body: { name: "x", upstream_integration_id: "greenhouse:nope" } }),
      ["body", "upstream_integration_id"],
    );
    // A candidate's application, on create, update and bulk update, under a position linked to A's integration.
    const candidate = await call<{ id: string }>(api(`/positions/${own.body.id}/`), {
      method: "POST",
      token: b.token,
      body: { name: "Eve", email: "eve@b.example", phone: "+1 555 0100", language: "en" },
    });
    assert.equal(candidate.status, 200);
    await legacyLink(own.body.id, undefined, `${job.id}-sweep`);
    const app = { upstream_application_id: application.id };
    const person = { name: "Eve", email: "eve2@b.example", phone: "+1 555 0100", language: "en" };
    expectRefused(await call(api(`/positions/${own.body.id}/`), { method: "POST", token: b.token, body: { ...person, ...app } }), [
      "body",
      "upstream_application_id",
    ]);
    expectRefused(
      await call(api(`/positions/${own.body.id}/candidates/${candidate.body.id}/`), { method: "PUT", token: b.token, body: app }),
      ["body", "upstream_application_id"],
    );
    expectRefused(
      await call(api(`/positions/${own.body.id}/`), { method: "PUT", token: b.token, body: [{ id: candidate.body.id, ...app }] }),
      ["body", 0, "upstream_application_id"],
    );
    // Proxy: every operation naming an integration, and the sync module's routes: 404 for B.
    const ids = {
      applicationId: application.id,
      candidateId: application.candidate?.id ?? "c",
      openJobId: job.id,
      stageId: job.stages?.[0]?.id ?? "s",
      fieldId: "f",
      customFieldId: "cf",
    };
    const proxyOrigin = stack.proxyUrl.replace(/\/api\/v1$/, "");
    const scoped = (Object.keys(OPERATIONS) as OperationName[]).filter((n) => OPERATIONS[n].tenancy !== "none");
    const routes = [
      ...scoped.map((n) => ({ name: n as string, ...sample(n, integration, ids) })),
      { name: "sync-all", method: "POST" as const, url: `/api/v1/webhooks/sync-all?integration_id=${encodeURIComponent(integration)}` },
      { name: "syncs", method: "GET" as const, url: `/api/v1/integrations/${encodeURIComponent(integration)}/syncs` },
    ];
    for (const r of routes) {
      const res = await call(`${proxyOrigin}${r.url}`, {
        method: r.method,
        token: b.token,
        ...("payload" in r ? { body: r.payload } : {}),
      });
      assert.equal(res.status, 404, `${r.name}: ${JSON.stringify(res.body)}`);
      assert.deepEqual(res.body, { detail: "Integration not found" }, r.name);
    }
    // The sync engine: a run queued for B on A's integration links nothing and is cancelled.
    const upstream = createUpstreamClient({
      baseUrl: stack.sandbox.url,
      apiKey: stack.sandbox.apiKey,
      timeoutMs: 5000,
      retry: { retries: 0, baseDelayMs: 10, maxTotalWaitMs: 0 },
      logger: silentLogger(),
    });
    const engine = createSyncEngine({
      db: getDb().db,
      queue: stack.queue,
      reader: createAtsReader(upstream, silentLogger()),
      store: createSyncStore({ interviewBaseUrl: "http://127.0.0.1/interview" }),
      integrations: stack.proxy.proxy!.integrations,
      logger: silentLogger(),
      defaultCandidateStage: "AI Interview",
      checkpointMarginSeconds: 60,
    });
    const positionsOfB = () =>
      getDb().query("select id, upstream_job_id_id from positions where organization_id = $1 order by id", [b.orgId]);
    const positionsBefore = await positionsOfB();
    const run = await engine.start({ integrationId: integration, orgId: b.orgId, models: ["jobs"], type: "FULL", trigger: "test" });
    await engine.run({ integrationId: integration, model: "jobs" }, { last: true });
    await upstream.close();
    const done = await eventually("the run to end", async () => {
      const r = await findSyncRun(getDb().db, run.id);
      return r && r.state !== "queued" && r.state !== "running" ? r : undefined;
    });
    assert.equal(done.state, "cancelled");
    assert.equal(done.lastError, "the integration does not belong to the run's organisation");
    assert.deepEqual(await positionsOfB(), positionsBefore, "the run created or linked no position of B");
    const after = await inAts();
    assert.deepEqual(
      [after.current_stage, after.notes.length, after.result_links.length],
      [before.current_stage, before.notes.length, before.result_links.length],
    );
  });

  test("a position of A links A's own integration (the rule refuses only others')", async () => {
    const res = await call<{ upstream_integration_id: string }>(`${stack.apiUrl}/org/${a.orgId}/position`, {
      method: "POST",
      token: a.token,
      body: { name: "Own link", upstream_integration_id: integration, upstream_job_id_id: `${job.id}-x` },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.upstream_integration_id, integration);
  });
});
