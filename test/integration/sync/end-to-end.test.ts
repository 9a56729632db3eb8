import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { IntegrationSyncs } from "../../../src/contracts/proxy/webhooks.js";
import { describeEachDatabase } from "../../helpers/db.js";
import { call, eventually, settledWriteBacks, startTestStack, type TestStack } from "../../helpers/stack.js";

type Position = {
  id: string;
  name: string;
  state: string;
  candidate_stage?: string | null;
  upstream_job_id_id?: string | null;
  upstream_integration_id?: string | null;
};
type Candidate = { id: string; email: string; upstream_application_id?: string };
type SandboxApplication = {
  id: string;
  job_id: string;
  current_stage: { id: string; name: string } | null;
  notes: { content: string }[];
  result_links: { label: string; url: string }[];
};

/**
 * The product, end to end, through the public APIs and the sandbox's admin surface only: an org
 * connects its ATS, the integration-created webhook starts a sync, the interview-stage applicants
 * appear as candidates, and a graded interview moves the application on in the ATS with a note
 * and a result link.
 */
describeEachDatabase("connect, sync, grade, write back", (getDb) => {
  let stack: TestStack;
  before(async () => {
    stack = await startTestStack(getDb(), { sandbox: { applications: 40 } });
  });
  after(async () => {
    await stack.close();
  });

  test("an ATS connected through the connect flow becomes positions and candidates, and results go back", async () => {
    const user = await stack.login();
    const token = user.accessToken;

    // 1. The org asks for a connect link; the person completes the sandbox's connect page.
    const link = await call<{ data: { link: string } }>(`${stack.proxyUrl}/connect/create-link`, {
      method: "POST",
      token,
      body: { end_user_email: "it@acme.test", end_user_organization_name: "Acme", integration_category: "ATS" },
    });
    assert.equal(link.status, 200, JSON.stringify(link.body));
    // The page's form posts the chosen tool to <link>/confirm, as a browser would.
    const confirmUrl = new URL(link.body.data.link);
    confirmUrl.pathname += "/confirm";
    confirmUrl.search = "";
    const confirm = await call<{ activation_token: string; integration_id: string }>(confirmUrl.toString(), {
      method: "POST",
      body: { tool_id: "greenhouse" },
    });
    assert.equal(confirm.status, 200, JSON.stringify(confirm.body));
    const integrationId = confirm.body.integration_id;

    // 2. The front end hands the activation token over; the integration is the org's.
    const activated = await call<{ data: { id: string } }>(`${stack.proxyUrl}/connect/activate`, {
      method: "POST",
      token,
      body: { activation_token: confirm.body.activation_token },
    });
    assert.equal(activated.status, 200, JSON.stringify(activated.body));

    // 3. integration-created arrives as a signed webhook and starts a full sync: jobs, then applications.
    const syncs = await eventually("both sync runs to succeed", async () => {
      const res = await call<IntegrationSyncs>(`${stack.proxyUrl}/integrations/${encodeURIComponent(integrationId)}/syncs`, { token });
      const runs = res.body.items;
      const ok = (model: string) => runs.some((r) => r.model === model && r.state === "succeeded");
      const failed = runs.find((r) => r.state === "failed");
      if (failed) throw new Error(`sync failed: ${failed.last_error}`);
      return ok("jobs") && ok("applications") ? runs : undefined;
    });
    // integration-created asks for a FULL run: its own, or a queued incremental one it upgraded (the
    // webhooks are unordered, so sync-finished may have queued or even started one first).
    assert.ok(
      syncs.some((r) => r.model === "jobs" && r.type === "FULL"),
      JSON.stringify(syncs.map((r) => [r.model, r.type, r.trigger, r.state])),
    );
    assert.ok(syncs.some((r) => r.model === "jobs" && r.state === "succeeded" && r.created > 0));

    // 4. Every upstream job is a position of the org, linked to its job.
    const jobs = await call<{ data: { results: { id: string; name: string }[] } }>(
      `${stack.proxyUrl}/ats/jobs?integration_id=${encodeURIComponent(integrationId)}&page_size=250`,
      { token },
    );
    const positions = await call<{ items: Position[] }>(`${stack.apiUrl}/org/${user.orgId}/position`, { token });
    assert.equal(positions.status, 200);
    const linked = positions.body.items.filter((p) => p.upstream_integration_id === integrationId);
    assert.equal(linked.length, jobs.body.data.results.length);
    assert.deepEqual(new Set(linked.map((p) => p.upstream_job_id_id)), new Set(jobs.body.data.results.map((j) => j.id)));

    // 5. The applicants at the AI Interview stage of each job are its candidates.
    const withStage = linked.filter((p) => p.candidate_stage);
    assert.ok(withStage.length > 0, "synced positions take the default candidate stage");
    let position: Position | undefined;
    let candidates: Candidate[] = [];
    for (const p of withStage) {
      const list = await call<Candidate[]>(`${stack.apiUrl}/org/${user.orgId}/positions/${p.id}/`, { token });
      const apps = await call<{
        data: {
          results: {
            id: string;
            current_stage: { name: string } | null;
            candidate: { email_addresses?: { email_address?: string | null }[] | null } | null;
          }[];
        };
      }>(
        `${stack.proxyUrl}/ats/applications?integration_id=${encodeURIComponent(integrationId)}&job_ids=${p.upstream_job_id_id}&page_size=250`,
        { token },
      );
      const inStage = apps.body.data.results.filter(
        (a) => a.current_stage?.name === "AI Interview" && a.candidate?.email_addresses?.some((e) => e.email_address),
      );
      assert.deepEqual(new Set(list.body.map((c) => c.upstream_application_id)), new Set(inStage.map((a) => a.id)), `position ${p.name}`);
      if (!position && list.body.length > 0) {
        position = p;
        candidates = list.body;
      }
    }
    assert.ok(position, "some position has interview-stage candidates");
    const candidate = candidates[0]!;

    // 6. The recruiter turns write-back on; the interview runner reports a graded interview.
    const configured = await call(`${stack.apiUrl}/org/${user.orgId}/position/${position.id}`, {
      method: "PUT",
      token,
      body: { auto_update_stages: true, min_score: 70, passed_stage: "offer", rejected_stage: "Rejected", needs_reviewed_stage: "Offer" },
    });
    assert.equal(configured.status, 200, JSON.stringify(configured.body));
    const interviewUrl = `${stack.apiUrl}/org/${user.orgId}/positions/${position.id}/candidates/${candidate.id}/interview/`;
    assert.equal(
      (await call(interviewUrl, { method: "PUT", token, body: { status: "completed", end_time: new Date().toISOString() } })).status,
      200,
    );
    const graded = await call(interviewUrl, {
      method: "PUT",
      token,
      body: { status: "graded", score: 85, feedback: "Clear and structured answers." },
    });
    assert.equal(graded.status, 200, JSON.stringify(graded.body));

    // 7. The application moved to Offer in the ATS, with one note and one result link.
    const admin = `${stack.sandbox.origin}/sandbox/integrations/${encodeURIComponent(integrationId)}/applications/${candidate.upstream_application_id}`;
    const application = await eventually("the write-back to reach the ATS", async () => {
      const res = await call<SandboxApplication>(admin);
      return res.body.notes.length > 0 && res.body.result_links.length > 0 && res.body.current_stage?.name === "Offer"
        ? res.body
        : undefined;
    });
    assert.equal(application.notes.length, 1);
    assert.match(application.notes[0]!.content, /score 85 \(minimum 70\)/);
    assert.match(application.notes[0]!.content, /Clear and structured answers/);
    assert.equal(application.result_links.length, 1);
    assert.equal(application.result_links[0]!.label, "Hirebridge AI interview");

    // The ATS shows the note a moment before Hirebridge records the write-back done (with its outbound event).
    const [wb] = await settledWriteBacks(stack, token, integrationId, candidate.id);
    assert.deepEqual([wb?.state, wb?.outcome], ["done", "passed"]);
  });
});
