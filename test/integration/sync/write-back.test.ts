import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { IntegrationSyncs } from "../../../src/contracts/proxy/webhooks.js";
import { describeEachDatabase } from "../../helpers/db.js";
import { call, eventually, startTestStack, type TestStack } from "../../helpers/stack.js";

type Position = { id: string; upstream_integration_id?: string | null; candidate_stage?: string | null };
type Candidate = { id: string; upstream_application_id?: string };
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
    const enc = encodeURIComponent(integrationId);
    assert.equal((await call(`${stack.proxyUrl}/webhooks/sync-all?integration_id=${enc}`, { method: "POST", token })).status, 200);
    await eventually("the full sync", async () => {
      const runs = (await call<IntegrationSyncs>(`${stack.proxyUrl}/integrations/${enc}/syncs`, { token })).body.items;
      return runs.some((r) => r.model === "applications" && r.state === "succeeded") ? true : undefined;
    });
    const positions = (await call<{ items: Position[] }>(`${stack.apiUrl}/org/${orgId}/position`, { token })).body.items;
    for (const p of positions.filter((x) => x.upstream_integration_id === integrationId && x.candidate_stage)) {
      const list = (await call<Candidate[]>(`${stack.apiUrl}/org/${orgId}/positions/${p.id}/`, { token })).body;
      if (list.length >= 2) {
        position = p;
        candidates = list;
        break;
      }
    }
    assert.ok(position, "a synced position with two interview-stage candidates");
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
    const wb = (
      await call<IntegrationSyncs>(`${stack.proxyUrl}/integrations/${encodeURIComponent(integrationId)}/syncs`, { token })
    ).body.write_backs.find((w) => w.candidate_id === c.id);
    assert.equal(wb?.state, "done");
    assert.ok((wb?.attempts ?? 0) >= 2, "it took a retry");
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
    } finally {
      await sandboxConfig({ rate_limit_per_second: 0, rate_limit_path_prefix: null });
    }
  });

  test("positions without auto_update_stages write nothing back", async () => {
    await call(`${stack.apiUrl}/org/${orgId}/position/${position.id}`, { method: "PUT", token, body: { auto_update_stages: false } });
    const c = candidates.find((x) => x !== candidates[0] && x !== candidates[1]);
    if (!c) return;
    const before = await inAts(c);
    await call(interviewUrl(c), { method: "PUT", token, body: { status: "cancelled" } });
    await new Promise((r) => setTimeout(r, 1500));
    const after = await inAts(c);
    assert.equal(after.notes.length, before.notes.length);
    assert.equal(after.current_stage?.name, before.current_stage?.name);
  });
});
