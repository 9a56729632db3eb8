import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, test } from "node:test";
import type { IntegrationSyncs } from "../../../src/contracts/proxy/webhooks.js";
import type { Candidate } from "../../../src/contracts/recruiting/candidates.js";
import type { Position } from "../../../src/contracts/recruiting/positions.js";
import type { WebhookEndpointCreated } from "../../../src/contracts/webhooks-out/endpoints.js";
import { createPosition } from "../../../src/services/recruiting/positions/positions.repository.js";
import { createSyncStore } from "../../../src/services/recruiting/upstream/sync-store.js";
import { createSyncRun, findSyncRun, startSyncRun } from "../../../src/services/sync/sync-runs.repository.js";
import { toSyncRun } from "../../../src/services/sync/sync-views.js";
import { createWebhooksOut } from "../../../src/services/webhooks-out/module.js";
import { silentLogger, testConfig } from "../../helpers/config.js";
import { describeEachDatabase } from "../../helpers/db.js";
import { call, connectThroughPage, eventually, startTestStack, type TestStack } from "../../helpers/stack.js";
import { type Receiver, startReceiver } from "./receiver.js";

/**
 * The sync module's events over the whole product: an ATS connected through the connect flow is
 * synced (positions, candidates, sync runs), interview results are written back (one succeeds,
 * one fails), and the failure degrades the integration's health. Every delivery is verified with
 * the `standardwebhooks` package, and each event's data is what the APIs answer for it.
 */
describeEachDatabase("webhooks out: the sync's events", (getDb) => {
  let stack: TestStack;
  let rx: Receiver;
  before(async () => {
    stack = await startTestStack(getDb(), {
      sandbox: { applications: 24 },
      config: { WEBHOOK_TARGETS: "loopback", WEBHOOK_RETRY_SCHEDULE: "0s,50ms" },
    });
    rx = await startReceiver();
  });
  after(async () => {
    await stack.close();
    await rx.close();
  });

  test("a sync, its write-backs and the integration's health arrive signed, each as the API shows it", async () => {
    const user = await stack.login();
    const token = user.accessToken;
    const org = `${stack.apiUrl}/org/${user.orgId}`;
    const endpoint = await call<WebhookEndpointCreated>(`${org}/webhook-endpoints`, { method: "POST", token, body: { url: rx.url } });
    rx.secrets.push(endpoint.body.secret);
    const integrationId = await connectThroughPage(stack.proxyUrl, token, "greenhouse");
    const history = () =>
      call<IntegrationSyncs>(`${stack.proxyUrl}/integrations/${encodeURIComponent(integrationId)}/syncs`, { token }).then((r) => r.body);
    const synced = await eventually("the sync runs to end", async () => {
      const h = await history();
      const done = (model: string) => h.items.some((r) => r.model === model && r.state === "succeeded");
      return done("jobs") && done("applications") && h.items.every((r) => r.finished_at) ? h : undefined;
    });

    // Every run that ended: one sync_run.finished, its data the history's run.
    const finished = await rx.waitFor((d) =>
      synced.items.every((r) => d.some((x) => x.type === "sync_run.finished" && x.data["id"] === r.id)),
    );
    for (const { quiet_runs: _folded, ...run } of synced.items) {
      // The history's own note (the quiet runs folded into a run) is no part of the run's event.
      const events = finished.filter((d) => d.type === "sync_run.finished" && d.data["id"] === run.id);
      assert.deepEqual(
        events.map((e) => e.data),
        [{ ...run, integration_id: integrationId }],
        `run ${run.model} ${run.type}`,
      );
    }

    // Each position and candidate the sync created: its created event, its data the API's answer.
    const positions = (await call<{ items: Position[] }>(`${org}/position`, { token })).body.items;
    const candidates = (
      await Promise.all(positions.map((p) => call<Candidate[]>(`${org}/positions/${p.id}/`, { token }).then((r) => r.body)))
    ).flat();
    assert.ok(candidates.length >= 2, "the sync created candidates");
    const created = await rx.waitFor(
      (d) =>
        d.filter((x) => x.type === "position.created" || x.type === "candidate.created").length >= positions.length + candidates.length,
    );
    const dataOf = (type: string) => new Map(created.filter((d) => d.type === type).map((d) => [d.data["id"], d.data]));
    assert.deepEqual(dataOf("position.created"), new Map(positions.map((p) => [p.id, p])));
    assert.deepEqual(dataOf("candidate.created"), new Map(candidates.map((c) => [c.id, c])));

    // Two results written back: one to a stage the job has (done), one to a stage it has not (failed).
    const [passing, failing] = candidates;
    for (const c of [passing!, failing!]) {
      const configured = await call(`${org}/position/${c.position_id}`, {
        method: "PUT",
        token,
        body: { auto_update_stages: true, min_score: 70, passed_stage: "offer", rejected_stage: "No such stage" },
      });
      assert.equal(configured.status, 200);
    }
    for (const [c, score] of [
      [passing!, 85],
      [failing!, 10],
    ] as const) {
      const interview = `${org}/positions/${c.position_id}/candidates/${c.id}/interview/`;
      assert.equal((await call(interview, { method: "PUT", token, body: { status: "completed" } })).status, 200);
      assert.equal((await call(interview, { method: "PUT", token, body: { status: "graded", score } })).status, 200);
    }
    const settled = await rx.waitFor(
      (d) => d.some((x) => x.type === "write_back.succeeded") && d.some((x) => x.type === "write_back.failed"),
    );
    const writeBacks = (await history()).write_backs;
    for (const [type, candidate] of [
      ["write_back.succeeded", passing!],
      ["write_back.failed", failing!],
    ] as const) {
      const recorded = writeBacks.find((w) => w.candidate_id === candidate.id)!;
      assert.equal(recorded.state, type === "write_back.succeeded" ? "done" : "failed");
      assert.deepEqual(settled.find((d) => d.type === type)!.data, { ...recorded, integration_id: integrationId });
    }

    // The failed write-back degrades the integration: its health change arrives.
    const [health] = (await rx.waitFor((d) => d.some((x) => x.type === "integration.health_changed"))).filter(
      (d) => d.type === "integration.health_changed",
    );
    assert.deepEqual(
      [health!.data["integration_id"], (health!.data["health"] as { state: string }).state, health!.data["previous_state"]],
      [integrationId, "degraded", "ok"],
    );

    assert.deepEqual(
      rx.deliveries.filter((d) => d.verifiedWith.length !== 1).map((d) => d.type),
      [],
      "every delivery verifies with standardwebhooks",
    );
  });

  test("a run ended by the one statement that writes its last page records sync_run.finished in that statement", async () => {
    const { db, query } = getDb();
    const orgId = randomUUID();
    // Its own outbound webhooks, delivering nothing: the event is looked for in the outbox.
    const webhooks = createWebhooksOut({ config: testConfig(), database: getDb(), logger: silentLogger(), deliver: false });
    await query("insert into webhook_endpoints (organization_id, url, secret) values ($1, 'http://127.0.0.1:1/', 'whsec_AAAA')", [orgId]);
    const store = createSyncStore({ interviewBaseUrl: "https://interview.example.test/i", events: webhooks.events });
    const position = await createPosition(db, orgId, { name: "One page" });
    const queued = await createSyncRun(db, { integrationId: `int-${orgId}`, orgId, model: "applications", type: "DELTA", trigger: "test" });
    const run = await startSyncRun(db, queued, new Date(Date.now() - 1000), 0);
    const apps = [
      { upstream_application_id: "a-1", name: "Ada", email: "ada@example.test", phone: null, language: "en", position_id: position.id },
    ];
    const page = { runId: run.id, skipped: 0, pages: 1, resume: null, finishedAt: new Date() };
    assert.deepEqual(await store.upsertCandidatesRecorded(db, orgId, apps, page), { recorded: true });

    const ended = (await findSyncRun(db, run.id))!;
    assert.equal(ended.state, "succeeded");
    const events = await query<{ type: string; data: Record<string, unknown> }>(
      "select type, data from webhook_messages where organization_id = $1 order by type",
      [orgId],
    );
    assert.deepEqual(
      events.map((e) => e.type),
      ["candidate.created", "sync_run.finished"],
    );
    assert.deepEqual(events[1]!.data, { ...toSyncRun(ended), integration_id: ended.integrationId });
    assert.equal(events[0]!.data["email"], "ada@example.test");
  });
});
