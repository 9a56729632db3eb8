import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, test } from "node:test";
import type { IntegrationList, IntegrationSummary } from "../../../src/contracts/proxy/index.js";
import { recordIntegration, setIntegrationState } from "../../../src/services/proxy/integrations/integrations.repository.js";
import { createHealthMonitor, type HealthChange } from "../../../src/services/sync/health/health-monitor.js";
import { createSyncRun, transitionSyncRun } from "../../../src/services/sync/sync-runs.repository.js";
import { integrationHealth, webhookEvents, writeBacks } from "../../../src/services/sync/sync.tables.js";
import { silentLogger } from "../../helpers/config.js";
import { describeEachDatabase } from "../../helpers/db.js";
import { startProxyHarness, type ProxyHarness } from "./proxy-harness.js";

describeEachDatabase("integration health", (getDb) => {
  let h: ProxyHarness;
  before(async () => {
    h = await startProxyHarness(getDb());
  });
  after(() => h?.close());

  const db = () => h.deps.database.db;
  const hours = (n: number) => new Date(Date.now() - n * 3_600_000);
  const summaryOf = async (token: string) => {
    const res = await h.call("GET", "/api/v1/integrations", { token });
    assert.equal(res.statusCode, 200, res.body);
    return new Map((res.json() as IntegrationList).items.map((i) => [i.id, i]));
  };
  const runs = async (integrationId: string, orgId: string, states: ("succeeded" | "failed")[]) => {
    for (const [n, state] of states.entries()) {
      const run = await createSyncRun(db(), { integrationId, orgId, model: "jobs", type: "DELTA", trigger: "test" });
      const running = await transitionSyncRun(db(), run, "running");
      await transitionSyncRun(db(), running, state, state === "failed" ? { lastError: `upstream answered 503 (run ${n + 1})` } : {});
    }
  };
  const failedWriteBack = (integrationId: string, orgId: string, updatedAt: Date) =>
    db().insert(writeBacks).values({
      eventKey: randomUUID(),
      orgId,
      integrationId,
      applicationId: "app",
      positionId: randomUUID(),
      candidateId: randomUUID(),
      interviewId: randomUUID(),
      outcome: "passed",
      state: "failed",
      lastError: "upstream answered 404 (NOT_FOUND: no such application)",
      updatedAt,
    });

  test("each integration's health in the list: ok, degraded or broken, with the reason", async () => {
    const login = await h.identity.login();
    const org = login.orgId;
    const ids = ["ok", "last-failed", "three-failed", "invalid", "paused", "write-back", "event", "old-failures"].map(
      (k) => `tool:${k}-${randomUUID().slice(0, 6)}`,
    );
    const [ok, lastFailed, threeFailed, invalid, paused, writeBack, event, old] = ids as [string, ...string[]];
    for (const id of ids) await recordIntegration(db(), { id, orgId: org, tool: "tool", status: "ACTIVE", organizationName: `Org ${id}` });
    await runs(ok, org, ["failed", "succeeded"]);
    await runs(lastFailed!, org, ["succeeded", "failed"]);
    await runs(threeFailed!, org, ["succeeded", "failed", "failed", "failed"]);
    await setIntegrationState(db(), invalid!, { status: "INVALID", at: new Date() });
    await setIntegrationState(db(), paused!, { status: "INACTIVE", at: new Date() });
    await failedWriteBack(writeBack!, org, new Date());
    await db().insert(webhookEvents).values({
      id: randomUUID(),
      type: "data-changed",
      integrationId: event!,
      orgId: org,
      payload: {},
      status: "failed",
      attempts: 4,
      lastError: "work failed after retries: connect ECONNREFUSED",
      processedAt: new Date(),
    });
    await failedWriteBack(old!, org, hours(25)); // outside the window: no longer counted

    const list = await summaryOf(login.accessToken);
    const health = (id: string) => list.get(id)!.health;
    assert.deepEqual(health(ok), { state: "ok", reason: null }, "a success after a failure is healthy again");
    assert.deepEqual(health(lastFailed!), { state: "degraded", reason: "the last sync failed; last: upstream answered 503 (run 2)" });
    assert.deepEqual(health(threeFailed!), { state: "broken", reason: "3 consecutive syncs failed; last: upstream answered 503 (run 4)" });
    assert.equal(health(invalid!).state, "broken");
    assert.match(health(invalid!).reason!, /^credentials invalid upstream/);
    assert.deepEqual(health(paused!), { state: "degraded", reason: "paused upstream (state INACTIVE): syncs and write-backs wait" });
    assert.deepEqual(health(writeBack!), {
      state: "degraded",
      reason: "1 write-back failed in the last 24 h; last: upstream answered 404 (NOT_FOUND: no such application)",
    });
    assert.deepEqual(health(event!), {
      state: "degraded",
      reason: "1 webhook event failed in the last 24 h; last: work failed after retries: connect ECONNREFUSED",
    });
    assert.deepEqual(health(old!), { state: "ok", reason: null });
    assert.equal(list.get(ok)!.display_name, `Org ${ok}`);

    // What the list computed is recorded as each one's last known health.
    const stored = await db().select().from(integrationHealth);
    const byId = new Map(stored.map((r) => [r.integrationId, r]));
    assert.equal(byId.get(threeFailed!)?.state, "broken");
    assert.equal(byId.get(lastFailed!)?.state, "degraded");
    assert.equal(byId.get(ok), undefined, "an integration that was always ok needs no row");

    // The integration's own summary agrees; a success brings the degraded one back to ok.
    await runs(lastFailed!, org, ["succeeded"]);
    const one = await h.call("GET", `/api/v1/integrations/${encodeURIComponent(lastFailed!)}/summary`, { token: login.accessToken });
    assert.equal(one.statusCode, 200, one.body);
    assert.deepEqual((one.json() as IntegrationSummary).health, { state: "ok", reason: null });
    const [row] = (await db().select().from(integrationHealth)).filter((r) => r.integrationId === lastFailed);
    assert.equal(row?.state, "ok");
  });

  test("a change of health is detected once, in the transaction that records it, and handed to onHealthChanged", async () => {
    const login = await h.identity.login();
    const id = `tool:watched-${randomUUID().slice(0, 6)}`;
    await recordIntegration(db(), { id, orgId: login.orgId, tool: "tool", status: "ACTIVE" });
    const seen: { change: HealthChange; inTx: number }[] = [];
    const monitor = createHealthMonitor({
      db: db(),
      integrations: h.deps.integrations,
      logger: silentLogger(),
      onHealthChanged: async (change, tx) => {
        const rows = await tx.select().from(integrationHealth);
        seen.push({ change, inTx: rows.filter((r) => r.integrationId === id && r.state === change.to).length });
      },
    });
    assert.equal(await monitor.refresh(id), null, "ok, as it was");
    await runs(id, login.orgId, ["failed", "failed", "failed"]);
    const change = await monitor.refresh(id);
    assert.equal(change?.from, "ok");
    assert.equal(change?.to, "broken");
    assert.equal(change?.orgId, login.orgId);
    assert.equal(await monitor.refresh(id), null, "the same state again is no change");
    await setIntegrationState(db(), id, { status: "INVALID", at: new Date() });
    assert.equal(await monitor.refresh(id), null, "a new reason alone is no change of state");
    assert.match((await monitor.healthOfAll([{ id, orgId: login.orgId, status: "INVALID" }])).get(id)!.reason!, /^credentials invalid/);
    assert.equal(seen.length, 1);
    assert.equal(seen[0]!.inTx, 1, "the new state is visible inside the transaction that records it");
    assert.equal(await monitor.refresh("tool:unknown"), null);
  });

  test("another organisation's integration: its summary is 404, its health is not listed", async () => {
    const mine = await h.identity.login();
    const theirs = await h.identity.login();
    const id = `tool:private-${randomUUID().slice(0, 6)}`;
    await recordIntegration(db(), { id, orgId: mine.orgId, tool: "tool", status: "INVALID" });
    const res = await h.call("GET", `/api/v1/integrations/${encodeURIComponent(id)}/summary`, { token: theirs.accessToken });
    assert.equal(res.statusCode, 404);
    assert.equal((await summaryOf(theirs.accessToken)).has(id), false);
    assert.equal((await summaryOf(mine.accessToken)).get(id)?.health.state, "broken");
  });
});
