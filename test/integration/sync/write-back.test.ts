import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { ActivityPage } from "../../../src/contracts/proxy/activity.js";
import type { IntegrationSyncs } from "../../../src/contracts/proxy/webhooks.js";
import { describeEachDatabase } from "../../helpers/db.js";
import {
  call,
  eventually,
  settledWriteBacks,
  startTestStack,
  syncedDemoPosition,
  type SyncedCandidate,
  type SyncedPosition,
  type TestStack,
} from "../../helpers/stack.js";

type Position = SyncedPosition;
type Candidate = SyncedCandidate;
type JobWithStages = { id: string; stages: { id: string; name: string }[] };
type SandboxApplication = { current_stage: { name: string } | null; notes: { content: string }[]; result_links: { url: string }[] };

describeEachDatabase("write-back", (getDb) => {
  let stack: TestStack;
  let token: string;
  let orgId: string;
  let integrationId: string;
  let position: Position;
  let candidates: Candidate[];
  before(async () => {
    stack = await startTestStack(getDb(), { sandbox: { applications: 80, webhookUrl: undefined as never } });
    integrationId = stack.sandbox.demoIntegrationId;
    orgId = stack.sandbox.demoOrgId;
    token = (await stack.login(orgId)).accessToken;
    ({ position, candidates } = await syncedDemoPosition(stack, token, 4));
    const res = await call(`${stack.apiUrl}/org/${orgId}/position/${position.id}`, {
      method: "PUT",
      token,
      body: {
        auto_update_stages: true,
        min_score: 60,
        passed_stage: "Offer",
        rejected_stage: "Rejected",
        needs_reviewed_stage: "rejected",
      },
    });
    assert.equal(res.status, 200);
  });
  after(async () => {
    await stack.close();
  });

  const interviewUrl = (c: Candidate) => `${stack.apiUrl}/org/${orgId}/positions/${position.id}/candidates/${c.id}/interview/`;
  const inAts = async (c: Candidate) =>
    (
      await call<SandboxApplication>(
        `${stack.sandbox.origin}/sandbox/integrations/${encodeURIComponent(integrationId)}/applications/${c.upstream_application_id}`,
      )
    ).body;
  const sandboxConfig = (patch: object) => call(`${stack.sandbox.origin}/sandbox/config`, { method: "PUT", body: patch });
  // Each test that writes back waits for the history, not only the ATS: the next test's snapshot of it must not catch one pending.
  const settled = (c: Candidate, count = 1) => settledWriteBacks(stack, token, integrationId, c.id, count);

  test("a write-back that fails half-way is retried without a second link or note", async () => {
    const c = candidates[0]!;
    // The stage move and the result link go through; the note fails once with a 503.
    await sandboxConfig({ fault_path_prefix: `/ats/applications/${c.upstream_application_id}/notes`, fault_kinds: ["503"], fail_next: 1 });
    assert.equal((await call(interviewUrl(c), { method: "PUT", token, body: { status: "completed" } })).status, 200);
    assert.equal((await call(interviewUrl(c), { method: "PUT", token, body: { status: "graded", score: 40 } })).status, 200);
    const app = await eventually(
      "the note after the retry",
      async () => {
        const a = await inAts(c);
        return a.notes.length > 0 ? a : undefined;
      },
      60_000,
    );
    assert.equal(app.current_stage?.name, "Rejected");
    assert.equal(app.result_links.length, 1);
    assert.equal(app.notes.length, 1);
    assert.match(app.notes[0]!.content, /score 40 \(minimum 60\)\. The candidate did not pass\./);
    const [wb] = await settled(c);
    assert.equal(wb?.state, "done");
    assert.ok((wb?.attempts ?? 0) >= 2, "it took a retry");
    // Names a person reads: the candidate, the position, and the stage as the job's stages name it.
    assert.equal(wb?.candidate_name, c.name);
    assert.equal(wb?.position_id, position.id);
    assert.equal(wb?.position_name, position.name);
    assert.equal(wb?.target_stage, "Rejected");
    assert.equal(wb?.target_stage_name, "Rejected");
  });

  test("a graded result is final (409, the ATS keeps what it was told); its correction updates the ATS too", async () => {
    const c = candidates[0]!; // graded 40 above: rejected, its write-back done
    const regrade = await call<{ detail: string }>(interviewUrl(c), { method: "PUT", token, body: { status: "graded", score: 85 } });
    assert.equal(regrade.status, 409);
    assert.match(regrade.body.detail, /graded, which is final.*interview\/correction/);
    const corrected = await call<{ score: number; status: string }>(`${interviewUrl(c)}correction`, {
      method: "POST",
      token,
      body: { score: 85, reason: "Scored against the wrong rubric" },
    });
    assert.equal(corrected.status, 200, JSON.stringify(corrected.body));
    assert.deepEqual([corrected.body.status, corrected.body.score], ["graded", 85]);
    const app = await eventually(
      "the corrective write-back in the ATS",
      async () => {
        const a = await inAts(c);
        return a.notes.length === 2 ? a : undefined;
      },
      60_000,
    );
    assert.equal(app.current_stage?.name, "Offer", "moved for the corrected outcome");
    assert.match(
      app.notes[1]!.content,
      /^Correction of an earlier Hirebridge result: Scored against the wrong rubric\n.*score 85 \(minimum 60\)\. The candidate passed\./,
    );
    const candidate = await call<{ score: number }>(`${stack.apiUrl}/org/${orgId}/positions/${position.id}/candidates/${c.id}/`, { token });
    assert.equal(candidate.body.score, 85, "the candidate follows the corrected result");
    assert.deepEqual(
      (await settled(c, 2)).map((w) => [w.state, w.outcome]),
      [
        ["done", "passed"],
        ["done", "rejected"],
      ],
      "newest first: the correction, then the first result",
    );
  });

  test("a rate-limited write-back waits as Retry-After says; an errored interview goes to review", async () => {
    const c = candidates[1]!;
    // Limited on this application's paths only: syncs reading the lists meanwhile spend nothing of it.
    await sandboxConfig({
      fault_path_prefix: null,
      fail_next: 0,
      rate_limit_per_second: 1,
      rate_limit_path_prefix: `/ats/applications/${c.upstream_application_id}/`,
    });
    try {
      assert.equal((await call(interviewUrl(c), { method: "PUT", token, body: { status: "errored" } })).status, 200);
      const app = await eventually(
        "the rate-limited write-back",
        async () => {
          const a = await inAts(c);
          return a.notes.length > 0 ? a : undefined;
        },
        60_000,
      );
      assert.equal(app.current_stage?.name, "Rejected", "needs_reviewed_stage matched by name, case-insensitively");
      assert.equal(app.notes.length, 1);
      assert.match(app.notes[0]!.content, /needs a review/);
      const [wb] = await settled(c);
      assert.deepEqual([wb?.state, wb?.outcome], ["done", "needs_review"]);
      assert.ok((wb?.attempts ?? 0) >= 2, "the limited calls were tried again");
    } finally {
      await sandboxConfig({ rate_limit_per_second: 0, rate_limit_path_prefix: null });
    }
  });

  test("a stage renamed or removed upstream: the history keeps the names it recorded; a write-back to it fails saying so", async () => {
    const enc = encodeURIComponent(integrationId);
    const history = async () =>
      (await call<IntegrationSyncs>(`${stack.proxyUrl}/integrations/${enc}/syncs`, { token })).body.write_backs.filter(
        (w) => w.state !== "pending",
      );
    const trail = async () =>
      (await call<ActivityPage>(`${stack.proxyUrl}/integrations/${enc}/activity?kind=write_back`, { token })).body.items.map((i) => [
        i.id,
        i.summary,
        i.write_back?.target_stage_name,
      ]);
    const before = await history();
    const beforeTrail = await trail();
    assert.deepEqual(
      new Set(before.map((w) => w.target_stage_name)),
      new Set(["Rejected", "Offer"]),
      "the write-backs so far named both stages",
    );
    const jobId = (await call<{ upstream_job_id_id: string }>(`${stack.apiUrl}/org/${orgId}/position/${position.id}`, { token })).body
      .upstream_job_id_id;
    const job = (
      await call<{ data: { results: JobWithStages[] } }>(`${stack.proxyUrl}/ats/jobs?integration_id=${enc}&ids=${jobId}`, { token })
    ).body.data.results[0]!;
    const stage = (name: string) => job.stages.find((s) => s.name === name)!;
    const stageUrl = (id: string) => `${stack.sandbox.origin}/sandbox/integrations/${enc}/jobs/${jobId}/stages/${id}`;
    assert.equal((await call(stageUrl(stage("Offer").id), { method: "PATCH", body: { name: "Offer extended" } })).status, 200);
    assert.equal((await call(stageUrl(stage("Rejected").id), { method: "DELETE" })).status, 200);
    const now = (
      await call<{ data: { results: JobWithStages[] } }>(`${stack.proxyUrl}/ats/jobs?integration_id=${enc}&ids=${jobId}`, { token })
    ).body.data.results[0]!;
    assert.ok(now.stages.some((s) => s.name === "Offer extended"));
    assert.ok(!now.stages.some((s) => s.name === "Rejected" || s.name === "Offer"));

    // What the history and the trail said stays as it was: the names the write-backs resolved.
    assert.deepEqual(await history(), before);
    assert.deepEqual(await trail(), beforeTrail);

    // The position still names "Offer", which is no stage of the job now: the write-back fails saying so.
    const c = candidates[2]!;
    await call(`${stack.apiUrl}/org/${orgId}/position/${position.id}`, { method: "PUT", token, body: { auto_update_stages: true } });
    assert.equal((await call(interviewUrl(c), { method: "PUT", token, body: { status: "completed" } })).status, 200);
    assert.equal((await call(interviewUrl(c), { method: "PUT", token, body: { status: "graded", score: 90 } })).status, 200);
    const failed = await eventually("the write-back to a renamed stage, failed", async () =>
      (await history()).find((w) => w.candidate_id === c.id && w.state === "failed"),
    );
    assert.equal(failed.target_stage, "Offer");
    // The message names the mapping to fix and the next step (issue 42).
    assert.equal(
      failed.last_error,
      `stage 'Offer' is not a stage of the job (removed upstream?): remap passed_stage of position '${position.name}' (${position.id}) to one of the job's stages (console: the position's Stage mapping; CLI: hirebridge positions update ${position.id} --passed-stage <stage>), then Retry this write-back`,
    );
    assert.equal(failed.candidate_name, c.name);
    assert.equal(failed.position_name, position.name);
  });

  test("positions without auto_update_stages write nothing back", async () => {
    await call(`${stack.apiUrl}/org/${orgId}/position/${position.id}`, { method: "PUT", token, body: { auto_update_stages: false } });
    const c = candidates[3]!; // none of the tests above wrote it back
    const before = await inAts(c);
    await call(interviewUrl(c), { method: "PUT", token, body: { status: "cancelled" } });
    await new Promise((r) => setTimeout(r, 1500));
    const after = await inAts(c);
    assert.equal(after.notes.length, before.notes.length);
    assert.equal(after.current_stage?.name, before.current_stage?.name);
  });
});
