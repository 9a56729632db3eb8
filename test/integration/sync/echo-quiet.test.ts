import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { ActivityPage } from "../../../src/contracts/proxy/activity.js";
import type { IntegrationSyncs } from "../../../src/contracts/proxy/webhooks.js";
import type { WebhookEndpointCreated } from "../../../src/contracts/webhooks-out/endpoints.js";
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
import { type Receiver, startReceiver } from "../webhooks-out/receiver.js";

/**
 * Issue 42, item 3, over real HTTP with the sandbox's webhooks delivered to the proxy (the echo is
 * real): a write-back's echo (data-changed after each of its calls) gives one follow-up run; that
 * run changed nothing, so it sends no sync_run.finished, only the opt-in sync_run.unchanged to the
 * endpoint that lists it; the activity trail folds the identical data-changed events into one row
 * with their count.
 */
describeEachDatabase("a write-back's echo stays quiet", (getDb) => {
  let stack: TestStack;
  let rx: Receiver;
  let token: string;
  let orgId: string;
  let enc: string;
  let position: SyncedPosition;
  let candidates: SyncedCandidate[];
  before(async () => {
    stack = await startTestStack(getDb(), {
      sandbox: { applications: 40 },
      config: { WEBHOOK_TARGETS: "loopback", WEBHOOK_RETRY_SCHEDULE: "0s,50ms" },
    });
    rx = await startReceiver();
    enc = encodeURIComponent(stack.sandbox.demoIntegrationId);
    orgId = stack.sandbox.demoOrgId;
    token = (await stack.login(orgId)).accessToken;
    ({ position, candidates } = await syncedDemoPosition(stack, token, 1));
    // Two endpoints: one of every type (empty event_types), one that opts in to unchanged runs.
    for (const [path, event_types] of [
      ["/all", []],
      ["/unchanged", ["sync_run.unchanged", "sync_run.finished"]],
    ] as const) {
      const url = new URL(path, rx.url).toString();
      const created = await call<WebhookEndpointCreated>(`${stack.apiUrl}/org/${orgId}/webhook-endpoints`, {
        method: "POST",
        token,
        body: { url, event_types },
      });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      rx.secrets.push(created.body.secret);
    }
    const mapped = await call(`${stack.apiUrl}/org/${orgId}/position/${position.id}`, {
      method: "PUT",
      token,
      body: { auto_update_stages: true, min_score: 60, passed_stage: "Offer", rejected_stage: "Rejected" },
    });
    assert.equal(mapped.status, 200);
  });
  after(async () => {
    await stack?.close();
    await rx?.close();
  });

  test("one follow-up run per write-back; no sync_run.finished for it unless subscribed; the echo's events folded with a count", async () => {
    const c = candidates[0]!;
    const interview = `${stack.apiUrl}/org/${orgId}/positions/${position.id}/candidates/${c.id}/interview/`;
    assert.equal((await call(interview, { method: "PUT", token, body: { status: "completed" } })).status, 200);
    assert.equal((await call(interview, { method: "PUT", token, body: { status: "graded", score: 80 } })).status, 200);
    const wb = (await settledWriteBacks(stack, token, stack.sandbox.demoIntegrationId, c.id))[0]!;
    assert.equal(wb.state, "done");

    // The echo's data-changed events, all received and processed: one row, counted.
    const events = await eventually("the echo's events, processed and folded", async () => {
      const page = (await call<ActivityPage>(`${stack.proxyUrl}/integrations/${enc}/activity?kind=event&since=${wb.created_at}`, { token }))
        .body;
      const echo = page.items.filter((i) => i.event?.type === "data-changed");
      return echo.length > 0 && echo.every((i) => i.status === "processed") && echo[0]!.count >= 2 ? echo : undefined;
    });
    assert.equal(events.length, 1, `the identical events are one row: ${JSON.stringify(events)}`);
    assert.match(events[0]!.event!.message ?? "", /the echo of a write-back/);

    // Every event's run: one follow-up run, which ended and changed nothing.
    const runs = await eventually("the echo's run, ended", async () => {
      const all = (await call<IntegrationSyncs>(`${stack.proxyUrl}/integrations/${enc}/syncs?include_quiet=true&limit=100`, { token })).body
        .items;
      const echo = all.filter((r) => r.trigger.includes("data-changed") && r.created_at >= wb.created_at);
      return echo.length > 0 && echo.every((r) => r.finished_at) ? echo : undefined;
    });
    assert.equal(runs.length, 1, `one follow-up run: ${JSON.stringify(runs)}`);
    const run = runs[0]!;
    assert.equal(run.created + run.updated + run.unlinked + run.skipped + run.failed, 0, "it changed nothing");

    // Opted in: sync_run.unchanged for it. Every type: nothing for it (no sync_run.finished either).
    const got = await rx.waitFor((d) => d.some((x) => x.type === "sync_run.unchanged" && x.data["id"] === run.id));
    const forRun = got.filter((d) => d.data["id"] === run.id);
    assert.deepEqual(
      forRun.map((d) => [d.path, d.type]),
      [["/unchanged", "sync_run.unchanged"]],
    );
    assert.ok(forRun.every((d) => d.verifiedWith.length === 1));
    // The endpoint of every type still hears of runs that changed something (the first sync's).
    assert.ok(got.some((d) => d.path === "/all" && d.type === "write_back.succeeded"));
  });
});
