import assert from "node:assert/strict";
import { after, before, test } from "node:test";
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

type Stage = { id: string; name: string };
type Mapped = SyncedPosition & { passed_stage: string | null; rejected_stage: string | null; upstream_job_id_id: string };
type SandboxApplication = { current_stage: { name: string } | null };

/**
 * Issue 42, item 2, over real HTTP: stage mappings keep the stage's id. A name-only mapping becomes
 * the stage's id on the next sync; a stage renamed upstream still takes write-backs; a removed
 * one fails the write-back with a message naming the mapping to fix, and Retry after remapping
 * lands. The sandbox sends no webhooks here, so only the syncs the test starts run.
 */
describeEachDatabase("stage mappings keep the stage's id", (getDb) => {
  let stack: TestStack;
  let token: string;
  let orgId: string;
  let enc: string;
  let position: SyncedPosition;
  let candidates: SyncedCandidate[];
  let stages: Stage[];
  before(async () => {
    stack = await startTestStack(getDb(), { sandbox: { applications: 60, webhookUrl: undefined as never } });
    enc = encodeURIComponent(stack.sandbox.demoIntegrationId);
    orgId = stack.sandbox.demoOrgId;
    token = (await stack.login(orgId)).accessToken;
    ({ position, candidates } = await syncedDemoPosition(stack, token, 2));
  });
  after(() => stack?.close());

  const positionUrl = () => `${stack.apiUrl}/org/${orgId}/position/${position.id}`;
  const current = async () => (await call<Mapped>(positionUrl(), { token })).body;
  const interview = (c: SyncedCandidate, body: object) =>
    call(`${stack.apiUrl}/org/${orgId}/positions/${position.id}/candidates/${c.id}/interview/`, { method: "PUT", token, body });
  const inAts = async (c: SyncedCandidate) =>
    (await call<SandboxApplication>(`${stack.sandbox.origin}/sandbox/integrations/${enc}/applications/${c.upstream_application_id}`)).body;
  const stageUrl = (jobId: string, stageId: string) =>
    `${stack.sandbox.origin}/sandbox/integrations/${enc}/jobs/${jobId}/stages/${stageId}`;
  const grade = async (c: SyncedCandidate, score: number) => {
    assert.equal((await interview(c, { status: "completed" })).status, 200);
    assert.equal((await interview(c, { status: "graded", score })).status, 200);
    return (await settledWriteBacks(stack, token, stack.sandbox.demoIntegrationId, c.id))[0]!;
  };

  test("a name-only mapping becomes the stage's id on the next sync; the sync's candidate stage is an id", async () => {
    const jobId = (await current()).upstream_job_id_id;
    stages = (
      await call<{ data: { results: { stages: Stage[] }[] } }>(`${stack.proxyUrl}/ats/jobs?integration_id=${enc}&ids=${jobId}`, { token })
    ).body.data.results[0]!.stages;
    const stage = (name: string) => stages.find((s) => s.name === name)!;
    assert.ok(
      stages.some((s) => s.id === position.candidate_stage),
      `candidate_stage is a stage id: ${position.candidate_stage}`,
    );
    const body = { auto_update_stages: true, min_score: 60, passed_stage: "offer", rejected_stage: "Rejected" };
    assert.equal((await call(positionUrl(), { method: "PUT", token, body })).status, 200);
    assert.deepEqual(
      [(await current()).passed_stage, (await current()).rejected_stage],
      ["offer", "Rejected"],
      "stored as sent until a sync",
    );
    assert.equal((await call(`${stack.proxyUrl}/webhooks/sync-all?integration_id=${enc}`, { method: "POST", token })).status, 200);
    const resolved = await eventually("the mapping resolved to ids", async () => {
      const p = await current();
      return p.passed_stage === stage("Offer").id ? p : undefined;
    });
    assert.equal(resolved.rejected_stage, stage("Rejected").id);
  });

  test("a stage renamed upstream still takes the write-back, under its new name", async () => {
    const jobId = (await current()).upstream_job_id_id;
    const offer = stages.find((s) => s.name === "Offer")!;
    assert.equal((await call(stageUrl(jobId, offer.id), { method: "PATCH", body: { name: "Offer Extended" } })).status, 200);
    const wb = await grade(candidates[0]!, 90);
    assert.deepEqual([wb.state, wb.last_error, wb.target_stage_name], ["done", null, "Offer Extended"]);
    assert.equal((await inAts(candidates[0]!)).current_stage?.name, "Offer Extended");
    assert.equal((await current()).passed_stage, offer.id, "the mapping still holds the id");
  });

  test("a removed stage fails the write-back naming the mapping to fix; Retry after remapping lands", async () => {
    const jobId = (await current()).upstream_job_id_id;
    const rejected = stages.find((s) => s.name === "Rejected")!;
    assert.equal((await call(stageUrl(jobId, rejected.id), { method: "DELETE" })).status, 200);
    const c = candidates[1]!;
    const failed = await grade(c, 20);
    assert.equal(failed.state, "failed");
    assert.equal(
      failed.last_error,
      `stage '${rejected.id}' is not a stage of the job (removed upstream?): remap rejected_stage of position '${position.name}' (${position.id}) to one of the job's stages (console: the position's Stage mapping; CLI: hirebridge positions update ${position.id} --rejected-stage <stage>), then Retry this write-back`,
    );
    const other = stages.find((s) => s.id !== rejected.id && s.name !== "Offer")!;
    assert.equal((await call(positionUrl(), { method: "PUT", token, body: { rejected_stage: other.id } })).status, 200);
    const retried = await call<{ state: string; target_stage: string }>(
      `${stack.proxyUrl}/integrations/${enc}/write-backs/${failed.id}/retry`,
      {
        method: "POST",
        token,
      },
    );
    assert.equal(retried.status, 200, JSON.stringify(retried.body));
    assert.deepEqual([retried.body.state, retried.body.target_stage], ["pending", other.id]);
    const done = await eventually("the retried write-back", async () => {
      const all = (await call<IntegrationSyncs>(`${stack.proxyUrl}/integrations/${enc}/syncs`, { token })).body.write_backs;
      return all.find((w) => w.id === failed.id && w.state === "done");
    });
    assert.equal(done.target_stage_name, other.name);
    assert.equal((await inAts(c)).current_stage?.name, other.name);
  });
});
