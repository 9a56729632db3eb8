import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, test } from "node:test";
import type { WebhookEventList, WebhookEventRecord } from "../../../src/contracts/proxy/webhook-events.js";
import { createAtsReader } from "../../../src/services/sync/ats-reader.js";
import { createSyncEngine } from "../../../src/services/sync/sync-engine.js";
import { createSyncStore, writeBackSource } from "../../../src/services/recruiting/upstream/index.js";
import { signWebhookBody } from "../../../src/shared/upstream/webhook-signature.js";
import { processWebhookEvents } from "../../../src/services/sync/webhooks/webhook-worker.js";
import { createWriteBack } from "../../../src/services/sync/write-back.js";
import { QUEUES } from "../../../src/shared/jobs/queue.js";
import { createUpstreamClient } from "../../../src/shared/upstream/upstream-client.js";
import { silentLogger } from "../../helpers/config.js";
import { describeEachDatabase } from "../../helpers/db.js";
import { call, eventually, startTestStack, type TestStack } from "../../helpers/stack.js";

const newId = () => `evt-${randomBytes(9).toString("base64url")}`;
type Delivery = { status: number; body: string };

/**
 * Poison never stalls work (issue 29, defects 3 and 4). An event that can never be processed fails
 * alone, is marked failed with its error and attempts, is listed by the API and can be re-driven;
 * intake refuses, per event, what it could never store or process, without failing the group commit
 * of the events beside it.
 */
describeEachDatabase("poison webhook events", (getDb) => {
  let stack: TestStack;
  let token: string;
  let orgId: string;
  let integration: string;
  before(async () => {
    stack = await startTestStack(getDb(), { sandbox: { applications: 5, webhookUrl: undefined as never } });
    integration = stack.sandbox.demoIntegrationId;
    orgId = stack.sandbox.demoOrgId;
    token = (await stack.login(orgId)).accessToken;
    // The organisation uses its integration once: it is recorded as the org's (no upstream lookup per event).
    assert.equal((await call(`${stack.proxyUrl}/integrations/${encodeURIComponent(integration)}`, { token })).status, 200);
  });
  after(async () => {
    await stack.close();
  });

  const deliver = async (kind: string, raw: string): Promise<Delivery> => {
    const res = await fetch(`${stack.proxyUrl}/webhooks/upstream/${kind}`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-kombo-signature": signWebhookBody(raw, stack.sandbox.webhookSecret) },
      body: raw,
    });
    return { status: res.status, body: await res.text() };
  };
  const dataChanged = (id: string, data: Record<string, unknown> = { changed_models: [{ name: "ats_jobs" }] }) =>
    JSON.stringify({
      id,
      type: "data-changed",
      data: { integration_id: integration, integration_tool: "greenhouse", integration_category: "ATS", ...data },
    });
  /** An event stored without intake's checks (as an older version stored them), with its job. */
  const storeUnchecked = async (id: string, data: Record<string, unknown>, opts: { startAfter?: number } = {}) => {
    await getDb().query("insert into webhook_events (id, type, integration_id, org_id, payload) values ($1, 'data-changed', $2, $3, $4)", [
      id,
      integration,
      orgId,
      JSON.stringify({ id, type: "data-changed", data: { integration_id: integration, ...data } }),
    ]);
    return stack.queue.send(QUEUES.webhookEvents, { eventId: id }, opts.startAfter ? { startAfter: opts.startAfter } : {});
  };
  const statusOf = async (ids: string[]) =>
    getDb().query<{ id: string; status: string; attempts: number; last_error: string | null }>(
      "select id, status, attempts, last_error from webhook_events where id = any($1::text[])",
      [ids],
    );
  const failedEvents = async () => (await call<WebhookEventList>(`${stack.proxyUrl}/webhooks/events?status=failed`, { token })).body.items;

  test("one poison event in a batch fails alone: the others are processed, it is failed at once with its error", async () => {
    const upstream = createUpstreamClient({
      baseUrl: stack.sandbox.url,
      apiKey: stack.sandbox.apiKey,
      timeoutMs: 5000,
      retry: { retries: 0, baseDelayMs: 10, maxTotalWaitMs: 0 },
      logger: silentLogger(),
    });
    const reader = createAtsReader(upstream, silentLogger());
    const common = { db: getDb().db, queue: stack.queue, reader, integrations: stack.proxy.proxy!.integrations, logger: silentLogger() };
    const ctx = {
      ...common,
      engine: createSyncEngine({
        ...common,
        store: createSyncStore({ interviewBaseUrl: "http://x/i" }),
        defaultCandidateStage: null,
        checkpointMarginSeconds: 60,
      }),
      writeBack: createWriteBack({ ...common, source: writeBackSource }),
      store: createSyncStore({ interviewBaseUrl: "http://x/i" }),
    };
    // Stored with jobs that start in an hour, so this test's batch is the only one to take them.
    const good = [newId(), newId()];
    const poison = newId();
    for (const id of good) await storeUnchecked(id, { changed_models: [{ name: "ats_jobs" }] }, { startAfter: 3600 });
    await storeUnchecked(poison, {}, { startAfter: 3600 });
    const ids = [good[0]!, poison, good[1]!];
    const jobs = ids.map((eventId, n) => ({ id: `job-${n}`, data: { eventId }, retryCount: 0, retryLimit: 8 }));
    const results = await processWebhookEvents(ctx, jobs);
    await upstream.close();
    assert.deepEqual(
      results.map((r) => r.status),
      ["completed", "completed", "completed"],
      "no job of the batch fails for the poison's sake, nor is the poison retried",
    );
    const rows = new Map((await statusOf(ids)).map((r) => [r.id, r]));
    assert.equal(rows.get(good[0]!)?.status, "processed");
    assert.equal(rows.get(good[1]!)?.status, "processed");
    assert.equal(rows.get(poison)?.status, "failed");
    assert.equal(rows.get(poison)?.attempts, 1);
    assert.match(rows.get(poison)?.last_error ?? "", /changed_models|map/);
  });

  test("chaos: a poison event among 500 good ones: every good one processed, the poison failed and listed, then re-driven", async () => {
    const good = Array.from({ length: 500 }, newId);
    const poison = newId();
    // One in fifty changes jobs (an incremental sync); the others a model Hirebridge does not sync.
    const models = (n: number) => ({ changed_models: [{ name: n % 50 === 0 ? "ats_jobs" : "ats_users" }] });
    const deliveries = good.map(async (id, n) => {
      if (n === 250) await storeUnchecked(poison, { changed_models: null });
      return deliver("data-changed", dataChanged(id, models(n)));
    });
    const t0 = Date.now();
    const answers = await Promise.all(deliveries);
    const t1 = Date.now();
    assert.deepEqual(new Set(answers.map((a) => a.status)), new Set([200]), "every good event is acknowledged");
    await eventually(
      "every good event processed and the poison failed",
      async () => {
        const rows = await statusOf([...good, poison]);
        const processed = rows.filter((r) => r.status === "processed" || r.status === "ignored").length;
        const failed = rows.find((r) => r.id === poison)?.status === "failed";
        return processed === good.length && failed ? true : undefined;
      },
      60_000,
    );
    console.log(`500 good events and a poison: delivered in ${t1 - t0} ms, processed ${Date.now() - t1} ms later`);
    const listed = (await failedEvents()).find((e) => e.id === poison);
    assert.ok(listed, "the failed event is listed");
    assert.equal(listed.status, "failed");
    assert.equal(listed.attempts, 1);
    assert.match(listed.last_error ?? "", /./);
    assert.match(listed.message ?? "", /^the event cannot be processed: /);

    // Re-driven: queued again, and (still poison) failed again with its attempts counted on.
    const redriven = await call<WebhookEventRecord>(`${stack.proxyUrl}/webhooks/events/${poison}/redrive`, { method: "POST", token });
    assert.equal(redriven.status, 200, JSON.stringify(redriven.body));
    assert.equal(redriven.body.status, "queued");
    await eventually("the re-driven event to fail again", async () => {
      const [row] = await statusOf([poison]);
      return row?.status === "failed" && row.attempts === 2 ? true : undefined;
    });
    // Only a failed event of the caller's organisation can be re-driven.
    const processed = await call(`${stack.proxyUrl}/webhooks/events/${good[0]}/redrive`, { method: "POST", token }); // changed jobs
    assert.equal(processed.status, 409);
    assert.deepEqual(processed.body, { detail: "Only a failed event can be re-driven; this one is processed" });
    const stranger = (await stack.login()).accessToken;
    const foreign = await call(`${stack.proxyUrl}/webhooks/events/${poison}/redrive`, { method: "POST", token: stranger });
    assert.deepEqual([foreign.status, foreign.body], [404, { detail: "Webhook event not found" }]);
    const foreignList = await call<WebhookEventList>(`${stack.proxyUrl}/webhooks/events?status=failed`, { token: stranger });
    assert.deepEqual(foreignList.body.items, [], "another organisation lists none of them");
    const otherIntegration = await call(`${stack.proxyUrl}/webhooks/events?integration_id=${encodeURIComponent(integration)}`, {
      token: stranger,
    });
    assert.equal(otherIntegration.status, 404);
  });

  test("chaos: a 10,000-level nested event among 200 concurrent good ones: 422 for it, 200 for every other", async () => {
    const deep = newId();
    // Built as text: the test's own JSON.stringify could not hold it either.
    const nested = `${"[".repeat(10_000)}${"]".repeat(10_000)}`;
    const deepRaw = dataChanged(deep).replace(/}}$/, `,"extra":${nested}}}`);
    const good = Array.from({ length: 200 }, newId);
    const answers = await Promise.all([
      ...good.slice(0, 100).map((id) => deliver("data-changed", dataChanged(id))),
      deliver("data-changed", deepRaw),
      ...good.slice(100).map((id) => deliver("data-changed", dataChanged(id))),
    ]);
    const deepAnswer = answers[100]!;
    assert.equal(deepAnswer.status, 422, deepAnswer.body);
    assert.deepEqual(JSON.parse(deepAnswer.body), {
      detail: [{ loc: ["body"], msg: "JSON nested deeper than 64 levels", type: "value_error" }],
    });
    const others = answers.filter((_, i) => i !== 100);
    assert.deepEqual(
      others.filter((a) => a.status !== 200).map((a) => `${a.status} ${a.body.slice(0, 100)}`),
      [],
      "every good event beside it is acknowledged",
    );
    assert.equal((await statusOf(good)).length, good.length, "and stored");
    assert.deepEqual(await statusOf([deep]), [], "the nested one is not stored");
  });

  test("intake refuses, per event, what it could never process: a data-changed event without changed_models is a 422", async () => {
    const id = newId();
    const raw = JSON.stringify({ id, type: "data-changed", data: { integration_id: integration } });
    const [bad, good] = await Promise.all([deliver("data-changed", raw), deliver("data-changed", dataChanged(newId()))]);
    assert.equal(bad.status, 422, bad.body);
    assert.deepEqual(JSON.parse(bad.body), {
      detail: [{ loc: ["body", "data", "changed_models"], msg: "Field required", type: "missing" }],
    });
    assert.equal(good.status, 200);
    const wrongType = JSON.stringify({ id: newId(), type: "integration-deleted", data: { id: integration, deleted_at: "yesterday" } });
    const deleted = await deliver("integration-deleted", wrongType);
    assert.equal(deleted.status, 422, deleted.body);
    assert.deepEqual(
      (JSON.parse(deleted.body) as { detail: { loc: unknown[] }[] }).detail.map((d) => d.loc),
      [["body", "data", "deleted_at"]],
    );
  });

  test("a job that fails for good without its worker settling the event (dead letter): the event is marked failed, never left queued", async () => {
    const id = newId();
    await getDb().query(
      "insert into webhook_events (id, type, integration_id, org_id, payload) values ($1, 'data-changed', $2, $3, '{}')",
      [id, integration, orgId],
    );
    // Its last attempt (no retries left), not yet taken by a worker.
    const jobId = await stack.queue.boss.send(QUEUES.webhookEvents, { eventId: id }, { retryLimit: 0, startAfter: 3600 });
    assert.ok(jobId);
    // As when a batch fails as a whole on its last attempt, or its worker dies: pg-boss fails the job.
    await stack.queue.boss.fail(QUEUES.webhookEvents, jobId, { message: "the batch failed" });
    const row = await eventually("the dead-lettered event marked failed", async () => {
      const [r] = await statusOf([id]);
      return r?.status === "failed" ? r : undefined;
    });
    assert.equal(row.last_error, "the event's job failed for good");
    assert.ok(
      (await failedEvents()).some((e) => e.id === id),
      "listed with the failed ones",
    );
  });
});
