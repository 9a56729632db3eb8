import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, test } from "node:test";
import { createEventIntake, type EventIntake, type IntakeOutcome } from "../../../src/services/sync/webhooks/event-intake.js";
import { signWebhookBody } from "../../../src/shared/upstream/webhook-signature.js";
import { openJobQueue, QUEUES, type JobQueue } from "../../../src/shared/jobs/queue.js";
import type { Database } from "../../../src/shared/db/database.js";
import { isAppError } from "../../../src/shared/errors.js";
import { silentLogger } from "../../helpers/config.js";
import { describeEachDatabase } from "../../helpers/db.js";
import { call, eventually, startTestStack, type TestStack } from "../../helpers/stack.js";

const eventId = () => `evt-${randomBytes(9).toString("base64url")}`;
const INTEGRATION = "greenhouse:intakeTestIntegration00000001";

const event = (id: string, data: Record<string, unknown> = {}) => ({
  id,
  type: "data-changed",
  integrationId: INTEGRATION,
  orgId: null,
  payload: { id, type: "data-changed", data: { integration_id: INTEGRATION, changed_models: [{ name: "ats_jobs" }], ...data } },
});

/**
 * A real commit failure, not a mock: a deferred constraint trigger that raises at COMMIT when a
 * stored event carries `fail_commit` (an error about no value: P0001), or `fail_content` (one
 * about a value: SQLSTATE 22023). Every insert of the statement has succeeded by then.
 */
async function failCommitsOfMarkedEvents(database: Database): Promise<void> {
  await database.query(`create or replace function fail_marked_event() returns trigger language plpgsql as $$
    begin
      if new.payload->'data'->>'fail_commit' = 'yes' then raise exception 'injected commit failure'; end if;
      -- A refusal about the event's content (SQLSTATE class 22), as a value storage cannot take raises.
      if new.payload->'data'->>'fail_content' = 'yes' then
        raise exception 'injected content failure' using errcode = '22023';
      end if;
      return null;
    end $$`);
  await database.query(`create constraint trigger fail_marked_event after insert on webhook_events
    deferrable initially deferred for each row execute function fail_marked_event()`);
}

async function storedIds(database: Database, ids: string[]): Promise<string[]> {
  const rows = await database.query<{ id: string }>("select id from webhook_events where id = any($1::text[]) order by id", [ids]);
  return rows.map((r) => r.id);
}

async function queuedJobsFor(queue: JobQueue, ids: string[]): Promise<string[]> {
  const jobs = await queue.boss.findJobs<{ eventId: string }>(QUEUES.webhookEvents, {});
  return jobs.map((j) => j.data.eventId).filter((id) => ids.includes(id));
}

describeEachDatabase("webhook group commit", (getDb) => {
  let queue: JobQueue;
  let intake: EventIntake;
  before(async () => {
    queue = await openJobQueue(getDb(), silentLogger(), { pollingIntervalSeconds: 0.5 });
    intake = createEventIntake({ database: getDb(), queue, logger: silentLogger() });
    await failCommitsOfMarkedEvents(getDb());
  });
  after(async () => {
    await queue.stop();
  });

  test("events submitted together share one commit; a repeated id is answered from the store and the rest are stored", async () => {
    const earlier = eventId();
    assert.deepEqual(await intake.submit(event(earlier)), { stored: true });
    const [a, b, c] = [eventId(), eventId(), eventId()];
    // Submitted in one turn of the event loop: one batch, holding a delivery of an id stored before and one repeated inside it.
    const outcomes = await Promise.all([event(a), event(b), event(earlier), event(c), event(a)].map((e) => intake.submit(e)));
    assert.deepEqual(
      outcomes.map((o) => o.stored),
      [true, true, false, true, false],
    );
    const repeat = outcomes[2] as Extract<IntakeOutcome, { stored: false }>;
    assert.equal(repeat.row?.id, earlier);
    assert.equal(repeat.row?.status, "queued");
    assert.equal((outcomes[4] as Extract<IntakeOutcome, { stored: false }>).row?.id, a);
    assert.deepEqual(await storedIds(getDb(), [a, b, c, earlier]), [a, b, c, earlier].sort());
    // One job per stored event, none for the repeats.
    assert.deepEqual((await queuedJobsFor(queue, [a, b, c, earlier])).sort(), [a, b, c, earlier].sort());
  });

  test("a batch whose commit fails fails every request in it and stores none of its events or jobs", async () => {
    const ids = [eventId(), eventId(), eventId()];
    const outcomes = await Promise.allSettled(ids.map((id, i) => intake.submit(event(id, i === 1 ? { fail_commit: "yes" } : {}))));
    for (const o of outcomes) {
      assert.equal(o.status, "rejected");
      assert.ok(isAppError(o.reason) && o.reason.statusCode === 503, String(o.status === "rejected" && o.reason));
      assert.doesNotMatch(String(o.reason.message), /injected/, "the database's error stays in the log");
    }
    assert.deepEqual(await storedIds(getDb(), ids), []);
    assert.deepEqual(await queuedJobsFor(queue, ids), []);
    // The upstream delivers them again: the unmarked ones are stored then.
    assert.deepEqual(await intake.submit(event(ids[0]!)), { stored: true });
    assert.deepEqual(await storedIds(getDb(), [ids[0]!]), [ids[0]!]);
  });

  test("a batch that storage refuses for one event's content (a 2,700-letter id to index): that event alone is 422, the rest stored", async () => {
    const ids = [eventId(), eventId(), eventId(), eventId()];
    const long = `greenhouse:${Array.from({ length: 2700 }, () => "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"[Math.floor(Math.random() * 52)]).join("")}`;
    // Past the receivers' bounds (they refuse it before it gets here): the commit itself must not let it fail the others.
    const outcomes = await Promise.allSettled(
      ids.map((id, i) =>
        intake.submit(i === 2 ? { ...event(id), integrationId: long } : event(id, i === 1 ? { fail_content: "yes" } : {})),
      ),
    );
    assert.deepEqual(
      outcomes.map((o) => (o.status === "fulfilled" ? "stored" : isAppError(o.reason) ? o.reason.statusCode : String(o.reason))),
      ["stored", 422, 422, "stored"],
    );
    const refused = outcomes[2] as PromiseRejectedResult;
    assert.deepEqual(refused.reason.detail, [{ loc: ["body"], msg: "The event holds a value too large to store", type: "value_error" }]);
    assert.deepEqual((outcomes[1] as PromiseRejectedResult).reason.detail, [
      { loc: ["body"], msg: "The event holds a value storage cannot accept", type: "value_error" },
    ]);
    assert.deepEqual(await storedIds(getDb(), ids), [ids[0]!, ids[3]!].sort());
    assert.deepEqual((await queuedJobsFor(queue, ids)).sort(), [ids[0]!, ids[3]!].sort());
  });

  test("an event alone on an idle intake is committed without waiting for others", async () => {
    const t0 = performance.now();
    for (let i = 0; i < 5; i++) assert.deepEqual(await intake.submit(event(eventId())), { stored: true });
    const each = (performance.now() - t0) / 5;
    // Bounded by the commit itself; a batching window would add to every one of these.
    assert.ok(each < 250, `${each.toFixed(1)} ms per lone event`);
  });
});

describeEachDatabase("webhook receivers under a burst", (getDb) => {
  let stack: TestStack;
  before(async () => {
    stack = await startTestStack(getDb(), { sandbox: { applications: 30, webhookUrl: undefined as never } });
    await failCommitsOfMarkedEvents(getDb());
    // The demo integration becomes the demo org's when first named by it, so its events start syncs.
    const token = (await stack.login(stack.sandbox.demoOrgId)).accessToken;
    assert.equal(
      (await call(`${stack.proxyUrl}/integrations/${encodeURIComponent(stack.sandbox.demoIntegrationId)}`, { token })).status,
      200,
    );
  });
  after(async () => {
    await stack.close();
  });

  async function deliver(body: unknown) {
    const raw = JSON.stringify(body);
    const res = await fetch(`${stack.proxyUrl}/webhooks/upstream/data-changed`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-kombo-signature": signWebhookBody(raw, stack.sandbox.webhookSecret) },
      body: raw,
    });
    return {
      status: res.status,
      retryAfter: res.headers.get("retry-after"),
      body: (await res.json()) as { detail?: string; processed?: boolean; message?: string },
    };
  }
  const dataChanged = (id: string, extra: Record<string, unknown> = {}) => ({
    id,
    type: "data-changed",
    data: {
      integration_id: stack.sandbox.demoIntegrationId,
      integration_tool: "greenhouse",
      integration_category: "ATS",
      changed_models: [{ name: "ats_applications" }],
      ...extra,
    },
  });

  test("a commit that fails is a 503 the upstream retries, and the event is not stored", async () => {
    const id = eventId();
    const res = await deliver(dataChanged(id, { fail_commit: "yes" }));
    assert.equal(res.status, 503);
    assert.equal(res.retryAfter, "1");
    assert.equal(typeof res.body.detail, "string");
    assert.deepEqual(await storedIds(getDb(), [id]), []);
  });

  test("2 events storage refuses for their content among 100 good ones, sent at once: 422 for them, 200 and stored for the others", async () => {
    const ids = Array.from({ length: 102 }, eventId);
    const bad = new Set([ids[30]!, ids[71]!]);
    const answers = await Promise.all(ids.map((id) => deliver(dataChanged(id, bad.has(id) ? { fail_content: "yes" } : {}))));
    answers.forEach((a, i) => {
      if (bad.has(ids[i]!)) {
        assert.equal(a.status, 422, JSON.stringify(a.body));
        assert.deepEqual(a.body, {
          detail: [{ loc: ["body"], msg: "The event holds a value storage cannot accept", type: "value_error" }],
        });
      } else assert.equal(a.status, 200, JSON.stringify(a.body));
    });
    assert.deepEqual(await storedIds(getDb(), ids), ids.filter((id) => !bad.has(id)).sort());
  });

  test("a burst of 2,000 events: every one acknowledged is stored, and all are processed long before a job-a-second worker could", async (t) => {
    const ids = Array.from({ length: 2000 }, eventId);
    const t0 = Date.now();
    const answers: number[] = [];
    // 40 senders at a time, as the upstream's delivery workers would.
    let next = 0;
    await Promise.all(
      Array.from({ length: 40 }, async () => {
        while (next < ids.length) {
          const id = ids[next++]!;
          const res = await deliver(dataChanged(id));
          assert.equal(res.status, 200, JSON.stringify(res.body));
          assert.equal(res.body.message, "stored; work queued");
          answers.push(res.status);
        }
      }),
    );
    assert.equal(answers.length, ids.length);
    const acknowledged = (Date.now() - t0) / 1000;
    assert.equal((await storedIds(getDb(), ids)).length, ids.length, "every acknowledged event is in the database");
    await eventually(
      "every event to be processed",
      async () => {
        const [row] = await getDb().query<{ open: number }>(
          "select count(*)::int as open from webhook_events where id = any($1::text[]) and status <> 'processed'",
          [ids],
        );
        return row!.open === 0 ? true : undefined;
      },
      120_000,
    );
    const seconds = (Date.now() - t0) / 1000;
    // A worker taking one job a second, four at a time (the queue before batching), needs 500 s.
    assert.ok(seconds < 120, `${seconds.toFixed(1)} s to acknowledge and process 2,000 events`);
    t.diagnostic(`acknowledged in ${acknowledged.toFixed(1)} s, all processed after ${seconds.toFixed(1)} s`);
    // The burst collapsed into far fewer incremental syncs than events (a run in progress takes one follow-up).
    const [runs] = await getDb().query<{ n: number }>("select count(*)::int as n from sync_runs where trigger = 'data-changed'");
    assert.ok(runs!.n > 0 && runs!.n < ids.length / 5, `${runs!.n} sync runs for 2,000 events`);
  });
});
