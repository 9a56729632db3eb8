import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { ActivityItem, ActivityPage } from "../../../src/contracts/proxy/activity.js";
import type { IntegrationList, WriteBack } from "../../../src/contracts/proxy/webhooks.js";
import { createUpstreamFailureLog } from "../../../src/services/sync/activity/upstream-failures.js";
import { upstreamCallFailures, webhookEvents } from "../../../src/services/sync/sync.tables.js";
import { silentLogger } from "../../helpers/config.js";
import { describeEachDatabase } from "../../helpers/db.js";
import {
  call,
  eventually,
  startTestStack,
  syncedDemoPosition,
  type SyncedCandidate,
  type SyncedPosition,
  type TestStack,
} from "../../helpers/stack.js";

type Position = SyncedPosition;
type Candidate = SyncedCandidate;
/** What an item is while its work is still under way. */
const IN_FLIGHT = new Set<ActivityItem["status"]>(["queued", "running", "pending"]);

type SandboxApplication = { current_stage: { name: string } | null; notes: unknown[]; result_links: unknown[] };

/** The activity trail over real HTTP: the stack (proxy with its workers, recruiting API, token service) and the sandbox. */
describeEachDatabase("activity trail", (getDb) => {
  let stack: TestStack;
  let token: string;
  let orgId: string;
  let integration: string;
  let position: Position;
  let candidates: Candidate[];
  const enc = () => encodeURIComponent(integration);
  const activity = async (query = "", as = token) =>
    call<ActivityPage & { detail?: unknown }>(`${stack.proxyUrl}/integrations/${enc()}/activity${query}`, { token: as });
  const items = async (query = "") => {
    const res = await activity(query);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.items;
  };
  const interview = (c: Candidate, body: object) =>
    call(`${stack.apiUrl}/org/${orgId}/positions/${position.id}/candidates/${c.id}/interview/`, { method: "PUT", token, body });
  const mapStages = (body: object) => call(`${stack.apiUrl}/org/${orgId}/position/${position.id}`, { method: "PUT", token, body });

  before(async () => {
    stack = await startTestStack(getDb(), { sandbox: { applications: 60 } });
    integration = stack.sandbox.demoIntegrationId;
    orgId = stack.sandbox.demoOrgId;
    token = (await stack.login(orgId)).accessToken;
    ({ position, candidates } = await syncedDemoPosition(stack, token));
  });
  after(() => stack?.close());

  test("a failed write-back is in the trail with the candidate's and position's names; retried after the mapping is fixed, it lands", async () => {
    const c = candidates[0]!;
    assert.equal((await mapStages({ auto_update_stages: true, min_score: 60, passed_stage: "No such stage" })).status, 200);
    assert.equal((await interview(c, { status: "completed" })).status, 200);
    assert.equal((await interview(c, { status: "graded", score: 88 })).status, 200);
    const failed = await eventually("the failed write-back", async () =>
      (await items("?kind=write_back&status=failed")).find((i) => i.candidate?.id === c.id),
    );
    assert.equal(failed.kind, "write_back");
    assert.equal(failed.retryable, true);
    assert.deepEqual(failed.candidate, { id: c.id, name: c.name });
    assert.deepEqual(failed.position, { id: position.id, name: position.name });
    assert.equal(failed.summary, `Write-back: ${c.name} (${position.name}) passed, to stage No such stage`);
    assert.match(
      failed.error ?? "",
      /^stage 'No such stage' is not a stage of the job \(removed upstream\?\): remap passed_stage of position .* then Retry this write-back$/,
    );
    const list = (await call<IntegrationList>(`${stack.proxyUrl}/integrations`, { token })).body.items;
    assert.match(list.find((i) => i.id === integration)!.health.reason ?? "", /1 write-back failed in the last 24 h/);

    // The mapping fixed, the retry takes the stage from it; the link and note done before are not repeated.
    assert.equal((await mapStages({ passed_stage: "Offer" })).status, 200);
    const retryUrl = `${stack.proxyUrl}/integrations/${enc()}/write-backs/${failed.id}/retry`;
    const retried = await call<WriteBack>(retryUrl, { method: "POST", token });
    assert.equal(retried.status, 200, JSON.stringify(retried.body));
    assert.equal(retried.body.state, "pending");
    assert.equal(retried.body.target_stage, "Offer");
    const done = await eventually("the retried write-back", async () =>
      (await items(`?kind=write_back&candidate_id=${c.id}`)).find((i) => i.id === failed.id && i.status === "done"),
    );
    assert.equal(done.write_back?.target_stage_name, "Offer");
    assert.equal(done.retryable, false);
    const app = (
      await call<SandboxApplication>(`${stack.sandbox.origin}/sandbox/integrations/${enc()}/applications/${c.upstream_application_id}`)
    ).body;
    assert.equal(app.current_stage?.name, "Offer");
    assert.equal(app.notes.length, 1);
    assert.equal(app.result_links.length, 1);
    const again = await call<{ detail: string }>(retryUrl, { method: "POST", token });
    assert.equal(again.status, 409);
    assert.equal(again.body.detail, "Only a failed write-back can be retried; this one is done");
    const health = (await call<IntegrationList>(`${stack.proxyUrl}/integrations`, { token })).body.items.find((i) => i.id === integration);
    assert.deepEqual(health?.health, { state: "ok", reason: null }, "nothing failed is left");
  });

  test("failed upstream calls: a proxied call the upstream fails, and a write-back's, each once, with names", async () => {
    await call(`${stack.sandbox.origin}/sandbox/config`, {
      method: "PUT",
      body: { fault_path_prefix: "/ats/tags", fault_kinds: ["503"], fail_next: 10 },
    });
    try {
      const res = await call(`${stack.proxyUrl}/ats/tags?integration_id=${enc()}`, { token });
      assert.equal(res.status, 502);
      const recorded = await eventually("the failed call", async () =>
        (await items("?kind=upstream_call")).find((i) => i.upstream_call?.operation === "GET /ats/tags"),
      );
      assert.equal(recorded.status, "failed");
      assert.equal(recorded.upstream_call?.source, "proxy");
      assert.equal(recorded.upstream_call?.upstream_status, 503);
      assert.equal(recorded.summary, "proxy GET /ats/tags failed (HTTP 503)");
      assert.equal(recorded.error, "The upstream failed with HTTP 503");
    } finally {
      await call(`${stack.sandbox.origin}/sandbox/config`, { method: "PUT", body: { fault_path_prefix: null, fail_next: 0 } });
    }

    // A write-back whose note the upstream fails once (503), then takes: the failed call names the candidate.
    const c = candidates[1]!;
    await call(`${stack.sandbox.origin}/sandbox/config`, {
      method: "PUT",
      body: { fault_path_prefix: `/ats/applications/${c.upstream_application_id}/notes`, fault_kinds: ["503"], fail_next: 1 },
    });
    assert.equal((await interview(c, { status: "errored" })).status, 200);
    const call503 = await eventually("the write-back's failed call", async () =>
      (await items(`?candidate_id=${c.id}&kind=upstream_call`)).find((i) => i.upstream_call?.source === "write-back"),
    );
    assert.equal(call503.upstream_call?.operation, "POST /ats/applications/{id}/notes");
    assert.deepEqual(call503.candidate, { id: c.id, name: c.name });
    assert.match(
      call503.summary,
      new RegExp(`^write-back POST /ats/applications/\\{id\\}/notes failed .*for ${c.name} \\(${position.name}\\)$`),
    );
    await eventually(
      "the write-back after its retry",
      async () => ((await items(`?candidate_id=${c.id}&kind=write_back`)).some((i) => i.status === "done") ? true : undefined),
      60_000,
    );
    await call(`${stack.sandbox.origin}/sandbox/config`, { method: "PUT", body: { fault_path_prefix: null, fail_next: 0 } });
  });

  test("one history, newest first, paged with a cursor, filtered by kind, status, time, candidate and position", async () => {
    // The write-backs of the tests before are echoed by the upstream (data-changed), and the echo's
    // incremental run can start a moment later: page a trail that has stopped changing, or a run
    // starting between this read and the first page would be on the pages and not in it.
    const all = await eventually("a trail with nothing in flight that stays the same for a second", async () => {
      const first = await items("?limit=200");
      if (first.some((i) => IN_FLIGHT.has(i.status))) return undefined;
      await sleep(1000);
      const again = await items("?limit=200");
      return JSON.stringify(again) === JSON.stringify(first) ? again : undefined;
    });
    const kinds = new Set(all.map((i) => i.kind));
    for (const k of ["event", "sync_run", "write_back", "upstream_call"]) assert.ok(kinds.has(k as ActivityItem["kind"]), `has a ${k}`);
    // An event reads as what the ATS said, not as ids: "data-changed: the ATS changed applications, …".
    assert.match(
      all.find((i) => i.kind === "event" && i.event?.type === "data-changed" && i.status === "processed")!.summary,
      /^data-changed: the ATS changed [a-z ,]+$/,
    );
    const times = all.map((i) => Date.parse(i.at));
    assert.deepEqual(
      times,
      [...times].sort((a, b) => b - a),
      "newest first",
    );
    const paged: ActivityItem[] = [];
    let cursor: string | null = null;
    do {
      const res = await activity(`?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      assert.equal(res.status, 200);
      assert.ok(res.body.items.length <= 3);
      paged.push(...res.body.items);
      cursor = res.body.next_cursor;
    } while (cursor);
    assert.deepEqual(
      paged.map((i) => `${i.kind}:${i.id}`),
      all.map((i) => `${i.kind}:${i.id}`),
      "the pages hold every item once, in order",
    );
    const firstPage = await activity("?limit=200");
    assert.equal(firstPage.body.integration.id, integration);
    assert.equal(firstPage.body.next_cursor, null);

    const runs = await items("?kind=sync_run&status=succeeded");
    assert.ok(runs.length >= 2 && runs.every((i) => i.kind === "sync_run" && i.status === "succeeded" && i.sync_run));
    assert.match(runs.at(-1)!.summary, /^Full sync of jobs \(sync-all\): succeeded, \d+ created, \d+ updated/);
    const two = await items("?kind=write_back,upstream_call&status=failed,done");
    assert.ok(
      two.length > 0 && two.every((i) => ["write_back", "upstream_call"].includes(i.kind) && ["failed", "done"].includes(i.status)),
    );
    const pivot = all[Math.floor(all.length / 2)]!.at;
    assert.ok((await items(`?until=${encodeURIComponent(pivot)}&limit=200`)).every((i) => i.at < pivot));
    assert.ok((await items(`?since=${encodeURIComponent(pivot)}&limit=200`)).every((i) => i.at >= pivot));
    const mine = await items(`?candidate_id=${candidates[0]!.id}`);
    assert.ok(mine.length > 0 && mine.every((i) => i.candidate?.id === candidates[0]!.id));
    const ofPosition = await items(`?position_id=${position.id}&limit=200`);
    assert.deepEqual(new Set(ofPosition.map((i) => i.position?.id)), new Set([position.id]));
    assert.ok(ofPosition.length >= mine.length);

    for (const bad of ["?kind=nonsense", "?status=lost", "?candidate_id=not-a-uuid", "?since=yesterday", "?limit=0", "?cursor=nope"]) {
      const res = await activity(bad);
      assert.equal(res.status, 422, bad);
      assert.equal((res.body.detail as { loc: string[] }[])[0]!.loc[0], "query", bad);
    }
  });

  test("tenant isolation: another organisation sees and retries nothing of it", async () => {
    const other = await stack.login();
    assert.equal((await activity("", other.accessToken)).status, 404);
    const failedOrDone = (await items("?kind=write_back"))[0]!;
    const retry = await call(`${stack.proxyUrl}/integrations/${enc()}/write-backs/${failedOrDone.id}/retry`, {
      method: "POST",
      token: other.accessToken,
    });
    assert.equal(retry.status, 404);
    // Its own integration: the demo org's candidate names nothing there, nor does the demo's write-back.
    const theirs = await call<{ id: string }>(`${stack.sandbox.origin}/sandbox/integrations`, {
      method: "POST",
      body: { org_id: other.orgId, tool: "lever", applications: 1 },
    });
    const theirUrl = `${stack.proxyUrl}/integrations/${encodeURIComponent(theirs.body.id)}`;
    const own = await eventually("the other org's integration", async () => {
      const res = await call<ActivityPage>(`${theirUrl}/activity`, { token: other.accessToken });
      return res.status === 200 ? res.body : undefined;
    });
    assert.ok(own.items.every((i) => i.candidate === null));
    const crossed = await call<ActivityPage>(`${theirUrl}/activity?candidate_id=${candidates[0]!.id}`, { token: other.accessToken });
    assert.deepEqual(crossed.body.items, []);
    const foreign = await call(`${theirUrl}/write-backs/${failedOrDone.id}/retry`, { method: "POST", token: other.accessToken });
    assert.equal(foreign.status, 404, "a write-back of another integration is not found through one's own");
  });

  test("a failed webhook event is retryable from the trail: re-driven, its work runs and health is ok again", async () => {
    // As the worker leaves an event whose retries ran out (webhook-worker.ts).
    const id = `evt-failed-${Date.now()}`;
    await getDb()
      .db.insert(webhookEvents)
      .values({
        id,
        type: "data-changed",
        integrationId: integration,
        orgId,
        payload: {
          id,
          type: "data-changed",
          data: {
            integration_id: integration,
            integration_tool: "greenhouse",
            integration_category: "ATS",
            changed_models: [{ name: "ats_jobs" }],
          },
        },
        status: "failed",
        attempts: 4,
        lastError: "work failed after retries: connect ECONNREFUSED",
        processedAt: new Date(),
      });
    const failed = (await items("?kind=event&status=failed")).find((i) => i.id === id);
    assert.equal(failed?.retryable, true);
    assert.equal(failed?.summary, "data-changed: the ATS changed jobs; its work failed after 4 attempts");
    assert.equal(failed?.error, "work failed after retries: connect ECONNREFUSED");
    const health = async () =>
      (await call<IntegrationList>(`${stack.proxyUrl}/integrations`, { token })).body.items.find((i) => i.id === integration)!.health;
    assert.match((await health()).reason ?? "", /1 webhook event failed in the last 24 h/);

    const redriven = await call<{ status: string }>(`${stack.proxyUrl}/webhooks/events/${encodeURIComponent(id)}/redrive`, {
      method: "POST",
      token,
    });
    assert.equal(redriven.status, 200);
    const processed = await eventually("the re-driven event", async () =>
      (await items("?kind=event")).find((i) => i.id === id && i.status === "processed"),
    );
    assert.equal(processed.retryable, false);
    assert.deepEqual(await health(), { state: "ok", reason: null });
  });

  test("a call failing again within seconds adds to one row's count; a failure for an integration nobody owns is not kept", async () => {
    const db = getDb().db;
    const log = createUpstreamFailureLog({ db, integrations: stack.proxy.proxy!.integrations, logger: silentLogger() });
    const failure = { integrationId: integration, source: "sync" as const, operation: "GET /ats/burst", status: 500, error: "boom" };
    for (let i = 0; i < 5; i++) log.record(failure);
    log.record({ ...failure, integrationId: "tool:nobodys" });
    log.record({ ...failure, orgId: "00000000-0000-4000-8000-000000000000" }); // a caller of another organisation
    await log.flush();
    const rows = (await db.select().from(upstreamCallFailures)).filter((r) => r.operation === "GET /ats/burst");
    assert.deepEqual(
      rows.map((r) => [r.integrationId, r.count]),
      [[integration, 5]],
    );
  });
});
