import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, test } from "node:test";
import type { ActivityPage } from "../../../src/contracts/proxy/activity.js";
import type { IntegrationSyncs, SyncRunEntry } from "../../../src/contracts/proxy/webhooks.js";
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

const quiet = (r: SyncRunEntry) =>
  r.type === "DELTA" && r.state === "succeeded" && r.created + r.updated + r.unlinked + r.skipped + r.failed === 0;
const FINAL = ["succeeded", "failed", "cancelled"];

/**
 * Each write-back's stage move, result link and note make the upstream send data-changed: the
 * incremental runs they start change nothing. The sync history (and the activity trail, which the
 * CLI and the console show) folds them into the run before them, counted, and lists them on request.
 */
describeEachDatabase("write-back echo in the sync history", (getDb) => {
  let stack: TestStack;
  let token: string;
  let orgId: string;
  let integrationId: string;
  let position: SyncedPosition;
  let candidates: SyncedCandidate[];
  const syncs = async (query = "") => {
    const res = await call<IntegrationSyncs>(`${stack.proxyUrl}/integrations/${encodeURIComponent(integrationId)}/syncs${query}`, {
      token,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body;
  };
  before(async () => {
    // The sandbox delivers its webhooks to the proxy (the stack's default): the echo is real.
    stack = await startTestStack(getDb(), { sandbox: { applications: 60 } });
    integrationId = stack.sandbox.demoIntegrationId;
    orgId = stack.sandbox.demoOrgId;
    token = (await stack.login(orgId)).accessToken;
    ({ position, candidates } = await syncedDemoPosition(stack, token));
    const mapped = await call(`${stack.apiUrl}/org/${orgId}/position/${position.id}`, {
      method: "PUT",
      token,
      body: { auto_update_stages: true, min_score: 60, passed_stage: "Offer", rejected_stage: "Rejected" },
    });
    assert.equal(mapped.status, 200);
  });
  after(() => stack?.close());

  test("a write-back's echo adds no run to the history: its quiet runs are folded into the run before, counted, and listed on request", async () => {
    const before = await syncs();
    const c = candidates[0]!;
    const interview = `${stack.apiUrl}/org/${orgId}/positions/${position.id}/candidates/${c.id}/interview/`;
    assert.equal((await call(interview, { method: "PUT", token, body: { status: "completed" } })).status, 200);
    assert.equal((await call(interview, { method: "PUT", token, body: { status: "graded", score: 80 } })).status, 200);
    const wb = (await settledWriteBacks(stack, token, integrationId, c.id))[0]!;
    assert.equal(wb.state, "done");

    // The echo: incremental runs started by data-changed after the write-back began, all ended and no more coming.
    let seen = "";
    const echo = await eventually(
      "the echo's runs, ended",
      async () => {
        const all = (await syncs("?include_quiet=true&limit=100")).items;
        const runs = all.filter((r) => r.trigger.includes("data-changed") && r.created_at >= wb.created_at);
        const now = JSON.stringify(runs.map((r) => [r.id, r.state]));
        const settled = runs.length > 0 && runs.every((r) => FINAL.includes(r.state)) && now === seen;
        seen = now;
        if (!settled) await sleep(1500);
        return settled ? runs : undefined;
      },
      60_000,
    );
    assert.ok(echo.every(quiet), `every echo run changed nothing: ${JSON.stringify(echo)}`);
    // Listed one by one on request, each with nothing folded into it.
    for (const r of echo) assert.equal(r.quiet_runs, null);

    // The default history: no new row; the last applications run before the write-back carries the count.
    const after = await syncs();
    const echoIds = new Set(echo.map((r) => r.id));
    assert.deepEqual(
      after.items.filter((r) => echoIds.has(r.id)),
      [],
      "no echo run listed",
    );
    assert.deepEqual(
      after.items.map((r) => r.id),
      before.items.map((r) => r.id),
      "the same runs as before the write-back",
    );
    const carrier = after.items.find((r) => r.model === "applications")!;
    const was = before.items.find((r) => r.id === carrier.id)!.quiet_runs?.count ?? 0;
    assert.equal(carrier.quiet_runs?.count, was + echo.length, "every echo run still counts");
    assert.equal(
      carrier.quiet_runs?.last_at,
      echo
        .map((r) => r.created_at)
        .sort()
        .at(-1),
    );

    // The activity trail shows the same runs, the count in the run's line for people.
    const trail = await call<ActivityPage>(`${stack.proxyUrl}/integrations/${encodeURIComponent(integrationId)}/activity?kind=sync_run`, {
      token,
    });
    assert.equal(trail.status, 200);
    assert.deepEqual(
      trail.body.items.map((i) => i.id),
      after.items.map((r) => r.id),
    );
    const item = trail.body.items.find((i) => i.id === carrier.id)!;
    assert.deepEqual(item.sync_run, carrier);
    const n = carrier.quiet_runs!.count;
    assert.match(
      item.summary,
      new RegExp(
        `^(Full|Incremental) sync of applications \\(.+\\): succeeded, \\d+ created, \\d+ updated.*; then ${n} incremental syncs? found nothing new \\(the last at \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ\\)$`,
      ),
    );

    // A run that changes something is listed again, with nothing folded into it yet.
    const full = await call<{ message: string }>(
      `${stack.proxyUrl}/webhooks/sync-all?integration_id=${encodeURIComponent(integrationId)}&type=APPLICATIONS`,
      { method: "POST", token },
    );
    assert.equal(full.status, 200);
    const listed = await eventually("the full run listed and ended", async () => {
      const r = (await syncs()).items[0];
      return r?.id === full.body.message && r.state === "succeeded" ? r : undefined;
    });
    assert.equal(listed.type, "FULL");
    assert.equal(listed.quiet_runs, null);
    const kept = (await syncs()).items.find((r) => r.id === carrier.id)!;
    assert.equal(kept.quiet_runs?.count, n, "the earlier run keeps its quiet runs");
  });
});
