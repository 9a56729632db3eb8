/**
 * Issue 43, fair queues: a noisy organisation's backlog does not hold up a quiet one's interactive
 * work. Organisation A has 800 ATS integrations with a queued sync of jobs and of applications each
 * (1,600 sync jobs) and 400 stored webhook events (400 webhook jobs), queued the way the product
 * queues them; the sandbox answers every call after 25 ms, so each of A's syncs holds a worker for
 * a while. Organisation B then connects its ATS over HTTP: its first sync must start within 5 s,
 * and its write-back (a graded interview) must be done within 5 s, while A's backlog is still there.
 *
 * First come, first served fails this: B's jobs wait behind A's 1,600 (at two sync workers, tens of
 * seconds). Run it that way with `TEST_JOBS_FAIR=false npm run test:all -- test/integration/scale/fair-queues.test.ts`
 * (JOBS_FAIR=false: no priorities, no per-organisation share).
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import type { IntegrationSyncs } from "../../../src/contracts/proxy/webhooks.js";
import { integrations } from "../../../src/services/proxy/integrations/integrations.tables.js";
import { syncPriority } from "../../../src/services/sync/sync-priority.js";
import { syncRuns, webhookEvents } from "../../../src/services/sync/sync.tables.js";
import { jobQueueSchema } from "../../../src/shared/db/pg-schemas.js";
import { PRIORITY, QUEUES } from "../../../src/shared/jobs/queue.js";
import { freshDatabase } from "../../helpers/db.js";
import { call, eventually, startTestStack, type TestStack } from "../../helpers/stack.js";

const NOISY_INTEGRATIONS = 800;
const NOISY_EVENTS = 400;
const FAIR = process.env["TEST_JOBS_FAIR"] ?? "true";

type Position = { id: string; candidate_stage?: string | null; upstream_integration_id?: string | null };
type Candidate = { id: string; upstream_application_id?: string };

/** Organisation A's backlog, queued as the product queues it: 1,600 sync jobs and 400 webhook jobs. */
async function floodNoisyOrganisation(stack: TestStack, db: Awaited<ReturnType<typeof freshDatabase>>, orgA: string) {
  const ids: string[] = [];
  for (let i = 0; i < NOISY_INTEGRATIONS; i++) {
    const endUser = { organization_name: "Noisy", creator_email: null, origin_id: orgA };
    ids.push(stack.sandbox.context.store.createIntegration({ toolId: "greenhouse", category: "ATS", endUser, applications: 0 }).id);
  }
  await db.db.insert(integrations).values(ids.map((id) => ({ id, orgId: orgA, tool: "greenhouse", category: "ATS", status: "ACTIVE" })));
  const models = ["jobs", "applications"] as const;
  const runs = ids.flatMap((id) =>
    models.map((model) => ({ integrationId: id, orgId: orgA, model, type: "DELTA" as const, trigger: "data-changed" })),
  );
  await db.db.insert(syncRuns).values(runs);
  const events = ids.slice(0, NOISY_EVENTS).map((id) => ({
    id: `noisy-${randomUUID()}`,
    type: "data-changed",
    integrationId: id,
    orgId: orgA,
    payload: { type: "data-changed", data: { integration_id: id, integration_tool: "greenhouse", changed_models: [{ name: "ats_jobs" }] } },
  }));
  await db.db.insert(webhookEvents).values(events);
  const sends = [
    ...runs.map(
      (r) => () =>
        stack.queue.send(
          QUEUES.sync,
          { integrationId: r.integrationId, model: r.model },
          { singletonKey: `${r.integrationId}:${r.model}`, priority: syncPriority(r.trigger), orgId: orgA },
        ),
    ),
    ...events.map((e) => () => stack.queue.send(QUEUES.webhookEvents, { eventId: e.id }, { priority: PRIORITY.webhook, orgId: orgA })),
  ];
  for (let i = 0; i < sends.length; i += 50) await Promise.all(sends.slice(i, i + 50).map((send) => send()));
}

/** Organisation A's sync jobs still waiting in the queue (counted in pg-boss's table: its own counts are cached). */
async function waitingSyncJobs(db: Awaited<ReturnType<typeof freshDatabase>>, orgA: string): Promise<number> {
  const [row] = await db.query<{ n: number }>(
    `select count(*)::int as n from ${jobQueueSchema(db.schema)}.job where name = $1 and state in ('created', 'retry') and data->>'integrationId' in (select id from integrations where org_id = $2)`,
    [QUEUES.sync, orgA],
  );
  return row!.n;
}

/** B connects its ATS through the connect flow; answers the integration and when the upstream created it. */
async function connect(stack: TestStack, token: string): Promise<{ integrationId: string; at: number }> {
  const link = await call<{ data: { link: string } }>(`${stack.proxyUrl}/connect/create-link`, {
    method: "POST",
    token,
    body: { end_user_email: "it@quiet.test", end_user_organization_name: "Quiet", integration_category: "ATS" },
  });
  assert.equal(link.status, 200, JSON.stringify(link.body));
  const confirmUrl = new URL(link.body.data.link);
  confirmUrl.pathname += "/confirm";
  confirmUrl.search = "";
  const at = Date.now();
  const confirm = await call<{ activation_token: string; integration_id: string }>(confirmUrl.toString(), {
    method: "POST",
    body: { tool_id: "greenhouse" },
  });
  assert.equal(confirm.status, 200, JSON.stringify(confirm.body));
  const activated = await call(`${stack.proxyUrl}/connect/activate`, {
    method: "POST",
    token,
    body: { activation_token: confirm.body.activation_token },
  });
  assert.equal(activated.status, 200, JSON.stringify(activated.body));
  return { integrationId: confirm.body.integration_id, at };
}

describe("fair queues: a noisy organisation's backlog does not hold up a quiet one [postgres]", () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  let stack: TestStack;
  before(async () => {
    db = await freshDatabase("postgres");
    stack = await startTestStack(db, { sandbox: { latencyMs: 25 }, config: { JOBS_FAIR: FAIR } });
  });
  after(async () => {
    await stack?.close();
    await db?.dispose();
  });

  test("B's first sync starts within 5 s and its write-back is done within 5 s while A's 2,000 jobs wait", async () => {
    const orgA = randomUUID();
    await floodNoisyOrganisation(stack, db, orgA);
    const backlog = await waitingSyncJobs(db, orgA);
    assert.ok(backlog >= 1_000, `A's sync backlog when B connects: ${backlog}`);

    const user = await stack.login();
    const token = user.accessToken;
    const { integrationId, at } = await connect(stack, token);
    const enc = encodeURIComponent(integrationId);
    const runs = await eventually(
      "B's first sync to finish",
      async () => {
        const items = (await call<IntegrationSyncs>(`${stack.proxyUrl}/integrations/${enc}/syncs`, { token })).body.items ?? [];
        const failed = items.find((r) => r.state === "failed");
        if (failed) throw new Error(`B's sync failed: ${failed.last_error}`);
        return items.some((r) => r.model === "applications" && r.state === "succeeded") ? items : undefined;
      },
      20_000,
    );
    const first = runs.filter((r) => r.model === "jobs" && r.started_at).sort((x, y) => x.started_at!.localeCompare(y.started_at!))[0];
    assert.ok(first, JSON.stringify(runs));
    const startedAfterMs = Date.parse(first.started_at!) - at;
    assert.ok(startedAfterMs < 5_000, `B's first sync started ${startedAfterMs} ms after connecting`);

    // B grades an interview of a synced candidate: the write-back reaches its ATS.
    const positions = (await call<{ items: Position[] }>(`${stack.apiUrl}/org/${user.orgId}/position`, { token })).body.items;
    let target: { position: Position; candidate: Candidate } | undefined;
    for (const p of positions.filter((x) => x.upstream_integration_id === integrationId && x.candidate_stage)) {
      const [candidate] = (await call<Candidate[]>(`${stack.apiUrl}/org/${user.orgId}/positions/${p.id}/`, { token })).body;
      if (candidate) {
        target = { position: p, candidate };
        break;
      }
    }
    assert.ok(target, "a synced position of B has a candidate");
    const settings = {
      auto_update_stages: true,
      min_score: 70,
      passed_stage: "offer",
      rejected_stage: "Rejected",
      needs_reviewed_stage: "Offer",
    };
    const configured = await call(`${stack.apiUrl}/org/${user.orgId}/position/${target.position.id}`, {
      method: "PUT",
      token,
      body: settings,
    });
    assert.equal(configured.status, 200, JSON.stringify(configured.body));
    const interviewUrl = `${stack.apiUrl}/org/${user.orgId}/positions/${target.position.id}/candidates/${target.candidate.id}/interview/`;
    const completed = await call(interviewUrl, { method: "PUT", token, body: { status: "completed", end_time: new Date().toISOString() } });
    assert.equal(completed.status, 200);
    const gradedAt = Date.now();
    const graded = await call(interviewUrl, { method: "PUT", token, body: { status: "graded", score: 85, feedback: "Clear." } });
    assert.equal(graded.status, 200, JSON.stringify(graded.body));
    const done = await eventually(
      "B's write-back to settle",
      async () => {
        const wbs = (await call<IntegrationSyncs>(`${stack.proxyUrl}/integrations/${enc}/syncs`, { token })).body.write_backs;
        const mine = wbs.find((w) => w.candidate_id === target.candidate.id);
        return mine && mine.state !== "pending" ? { ...mine, ms: Date.now() - gradedAt } : undefined;
      },
      20_000,
    );
    assert.equal(done.state, "done", JSON.stringify(done));
    assert.ok(done.ms < 5_000, `B's write-back settled ${done.ms} ms after the grade`);
    const application = await call<{ notes: unknown[] }>(
      `${stack.sandbox.origin}/sandbox/integrations/${enc}/applications/${target.candidate.upstream_application_id}`,
    );
    assert.equal(application.body.notes.length, 1);

    // A's backlog was still there all along: B went past it, not after it.
    const left = await waitingSyncJobs(db, orgA);
    assert.ok(left > 0, "A's sync jobs still wait");
  });
});
