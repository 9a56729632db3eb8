import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, test } from "node:test";
import Ajv from "ajv";
import addFormats from "ajv-formats";
import { Webhook } from "standardwebhooks";
import type { Position } from "../../../src/contracts/recruiting/positions.js";
import type {
  ResendFailedAnswer,
  TestEventAnswer,
  WebhookDelivery,
  WebhookDeliveryList,
  WebhookEndpoint,
  WebhookEndpointCreated,
  WebhookMessage,
} from "../../../src/contracts/webhooks-out/endpoints.js";
import type { EventTypeCatalogue } from "../../../src/contracts/webhooks-out/events.js";
import { type JobQueue, openJobQueue } from "../../../src/shared/jobs/queue.js";
import { silentLogger } from "../../helpers/config.js";
import { describeEachDatabase } from "../../helpers/db.js";
import { type Caller, startTestReceiver, subscribe, useWebhooksApi } from "./harness.js";

/** Every delivery of the endpoint, paging with `limit` (and `status`), checking each page's size and order. */
async function allPages(who: Caller, endpointId: string, query: string): Promise<{ items: WebhookDelivery[]; pages: number }> {
  const items: WebhookDelivery[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page: { status: number; body: WebhookDeliveryList } = await who.org<WebhookDeliveryList>(
      "GET",
      `/webhook-endpoints/${endpointId}/deliveries?${query}${cursor ? `&cursor=${cursor}` : ""}`,
    );
    assert.equal(page.status, 200, JSON.stringify(page.body));
    items.push(...page.body.items);
    cursor = page.body.next_cursor;
    pages++;
    assert.ok(pages < 20, "paging ends");
  } while (cursor);
  return { items, pages };
}

/** Waits until the endpoint has `n` deliveries, none pending (their single attempt recorded). */
async function settled(who: Caller, endpointId: string, n: number): Promise<WebhookDelivery[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { body } = await who.org<WebhookDeliveryList>("GET", `/webhook-endpoints/${endpointId}/deliveries?limit=100`);
    if (body.items.length === n && body.items.every((d) => d.status !== "pending" && d.attempts.length > 0)) return body.items;
    if (Date.now() > deadline) assert.fail(`deliveries did not settle: ${JSON.stringify(body.items.map((d) => d.status))}`);
    await sleep(50);
  }
}

describeEachDatabase("webhooks out: deliveries you can inspect", (getDb) => {
  // One attempt per delivery: a failure is final at once (status failed).
  const api = useWebhooksApi(getDb, { config: { WEBHOOK_TARGETS: "loopback", WEBHOOK_RETRY_SCHEDULE: "0s", WEBHOOK_TIMEOUT_MS: 2000 } });

  test("deliveries page with limit and cursor, filter by status, and show the webhook-id, payload and headers sent", async () => {
    const me = await api().login();
    const { rx, endpoint } = await subscribe(me, ["position.created"]);
    rx.answer = (d) => (String(d.data["name"]).startsWith("fail") ? 500 : 200);
    const names = ["ok 1", "fail 1", "ok 2", "fail 2", "ok 3"];
    for (const name of names) assert.equal((await me.org<Position>("POST", "/position", { name })).status, 200);
    await rx.waitFor((d) => d.length === 5);
    await settled(me, endpoint.id, 5);

    const { items, pages } = await allPages(me, endpoint.id, "limit=2");
    assert.equal(pages, 3, "5 deliveries in pages of 2");
    assert.equal(items.length, 5);
    assert.deepEqual(
      items.map((d) => d.message_id),
      [...items.map((d) => d.message_id)].sort().reverse(),
      "newest first, no delivery twice across pages",
    );
    assert.equal(new Set(items.map((d) => d.message_id)).size, 5);
    assert.deepEqual(
      items.map((d) => (d.payload as { data: { name: string } }).data.name),
      [...names].reverse(),
    );

    const failed = await allPages(me, endpoint.id, "limit=1&status=failed");
    assert.deepEqual(failed.items.map((d) => (d.payload as { data: { name: string } }).data.name).sort(), ["fail 1", "fail 2"]);
    assert.ok(failed.items.every((d) => d.status === "failed" && d.attempts[0]!.status_code === 500));
    const succeeded = await allPages(me, endpoint.id, "limit=100&status=succeeded");
    assert.deepEqual(succeeded.items.map((d) => (d.payload as { data: { name: string } }).data.name).sort(), ["ok 1", "ok 2", "ok 3"]);

    for (const d of items) {
      const got = rx.deliveries.find((r) => r.id === d.message_id);
      assert.ok(got, "the receiver got each listed delivery");
      assert.equal(d.webhook_id, got.id);
      assert.equal(d.test, false);
      assert.deepEqual(d.payload, JSON.parse(got.body), "the payload is the body sent");
      const headers = d.attempts[0]!.request_headers!;
      assert.equal(headers["webhook-id"], got.id);
      assert.equal(headers["webhook-timestamp"], got.timestamp);
      assert.equal(headers["webhook-signature"], got.signature);
      assert.equal(headers["content-type"], "application/json");
      // The recorded headers and the payload verify as the receiver's copy did.
      assert.doesNotThrow(() => new Webhook(endpoint.secret).verify(got.body, headers));
      const one = await me.org<WebhookDelivery>("GET", `/webhook-endpoints/${endpoint.id}/deliveries/${d.message_id}`);
      assert.equal(one.status, 200);
      assert.deepEqual(one.body, d);
    }
  });

  test("a test event of each catalogue type reaches only its endpoint, signed (standardwebhooks) and marked as a test", async () => {
    const me = await api().login();
    const { rx, endpoint } = await subscribe(me, ["position.created"]);
    const { rx: other } = await subscribe(me);
    const catalogue = (await me.call<EventTypeCatalogue>("GET", "/webhook-event-types")).body;
    const ajv = new Ajv.default({ strict: false });
    addFormats.default(ajv);
    for (const { type, schema } of catalogue.items) {
      const sent = await me.org<TestEventAnswer>("POST", `/webhook-endpoints/${endpoint.id}/test`, { event_type: type });
      assert.equal(sent.status, 202, JSON.stringify(sent.body));
      assert.deepEqual(sent.body, { message_id: sent.body.message_id, endpoint_id: endpoint.id, type, test: true });
      const [got] = (await rx.waitFor((d) => d.some((x) => x.id === sent.body.message_id))).filter((x) => x.id === sent.body.message_id);
      assert.deepEqual(got!.verifiedWith, [0], `${type}: verifies with standardwebhooks and the endpoint's secret`);
      assert.doesNotThrow(() =>
        new Webhook(endpoint.secret).verify(got!.body, {
          "webhook-id": got!.id,
          "webhook-timestamp": got!.timestamp,
          "webhook-signature": got!.signature,
        }),
      );
      const body = JSON.parse(got!.body) as { type: string; test: boolean };
      assert.equal(body.type, type);
      assert.equal(body.test, true);
      const validate = ajv.compile(schema as object);
      assert.ok(validate(body), `${type}: the example matches the catalogue's schema: ${JSON.stringify(validate.errors)}`);
    }
    // A real event afterwards reaches the other endpoint: no test event went there before it.
    await me.org("POST", "/position", { name: "after the tests" });
    await other.waitFor((d) => d.some((x) => x.type === "position.created"));
    assert.ok(
      other.deliveries.every((d) => (JSON.parse(d.body) as { test?: boolean }).test === undefined),
      "no test event at the other endpoint",
    );

    const listed = await allPages(me, endpoint.id, "limit=100");
    const tests = listed.items.filter((d) => d.test);
    assert.equal(tests.length, catalogue.items.length, "each test event is recorded as a delivery");
    const message = await me.org<WebhookMessage>("GET", `/webhook-messages/${tests[0]!.message_id}`);
    assert.equal(message.body.test, true);

    const off = await me.org<WebhookEndpoint>("PATCH", `/webhook-endpoints/${endpoint.id}`, { disabled: true });
    assert.equal(off.status, 200);
    const refused = await me.org<{ detail: string }>("POST", `/webhook-endpoints/${endpoint.id}/test`, { event_type: "candidate.created" });
    assert.equal(refused.status, 409);
    assert.match(refused.body.detail, /enable it first/);
  });

  test("resend-failed queues again the deliveries that failed since a time, with their webhook-ids, and says how many", async () => {
    const me = await api().login();
    const { rx, endpoint } = await subscribe(me, ["position.created"]);
    rx.answer = (d) => (String(d.data["name"]).startsWith("fail") ? 503 : 200);
    await me.org("POST", "/position", { name: "fail early" });
    await rx.waitFor((d) => d.length === 1);
    await settled(me, endpoint.id, 1);
    await sleep(20);
    const since = new Date().toISOString();
    for (const name of ["fail a", "ok b", "fail c"]) await me.org("POST", "/position", { name });
    await rx.waitFor((d) => d.length === 4);
    const before = await settled(me, endpoint.id, 4);
    const failedIds = before
      .filter((d) => d.status === "failed" && (d.payload as { data: { name: string } }).data.name !== "fail early")
      .map((d) => d.message_id);
    assert.equal(failedIds.length, 2);

    rx.answer = () => 200;
    const answer = await me.org<ResendFailedAnswer>("POST", `/webhook-endpoints/${endpoint.id}/resend-failed`, { since });
    assert.equal(answer.status, 202, JSON.stringify(answer.body));
    assert.deepEqual(answer.body, { endpoint_id: endpoint.id, since, queued: 2 });
    await rx.waitFor((d) => d.length === 6);
    assert.deepEqual(
      rx.deliveries
        .slice(4)
        .map((d) => d.id)
        .sort(),
      [...failedIds].sort(),
      "the same webhook-ids again",
    );
    const after = await settled(me, endpoint.id, 4);
    const status = Object.fromEntries(after.map((d) => [(d.payload as { data: { name: string } }).data.name, d.status]));
    assert.deepEqual(status, { "fail early": "failed", "fail a": "succeeded", "ok b": "succeeded", "fail c": "succeeded" });
    const resent = after.find((d) => d.message_id === failedIds[0])!;
    assert.deepEqual(
      resent.attempts.map((a) => [a.attempt, a.manual, a.ok]),
      [
        [2, true, true],
        [1, false, false],
      ],
    );
    // Nothing failed since then: nothing queued.
    const again = await me.org<ResendFailedAnswer>("POST", `/webhook-endpoints/${endpoint.id}/resend-failed`, { since });
    assert.equal(again.body.queued, 0);
  });

  test("another organisation's endpoint shows nothing and changes nothing; bad input is a 422 in the spec's shape", async () => {
    const me = await api().login();
    const { rx, endpoint } = await subscribe(me, ["position.created"]);
    await me.org("POST", "/position", { name: "mine" });
    await rx.waitFor((d) => d.length === 1);
    const [mine] = await settled(me, endpoint.id, 1);
    const stranger = await api().login();
    const base = `/webhook-endpoints/${endpoint.id}`;
    const tries = [
      await stranger.org("GET", `${base}/deliveries`),
      await stranger.org("GET", `${base}/deliveries/${mine!.message_id}`),
      await stranger.org("POST", `${base}/test`, { event_type: "candidate.created" }),
      await stranger.org("POST", `${base}/resend-failed`, { since: "2020-01-01T00:00:00Z" }),
      await stranger.org("POST", `${base}/keep-alive`),
      await stranger.org("GET", `/webhook-messages/${mine!.message_id}`),
    ];
    for (const t of tries) {
      assert.equal(t.status, 404, JSON.stringify(t.body));
      assert.doesNotMatch(JSON.stringify(t.body), new RegExp(mine!.message_id));
    }
    // My token on the stranger's org path: refused by the tenant guard.
    assert.equal((await me.call("GET", `/org/${stranger.orgId}${base}/deliveries`)).status, 403);
    await sleep(200);
    assert.equal(rx.deliveries.length, 1, "the stranger's test event went nowhere");

    const bad: [string, string, unknown, string][] = [
      ["GET", `${base}/deliveries?limit=0`, undefined, "limit"],
      ["GET", `${base}/deliveries?status=lost`, undefined, "status"],
      ["GET", `${base}/deliveries?cursor=nope`, undefined, "cursor"],
      ["POST", `${base}/test`, { event_type: "candidate.exploded" }, "event_type"],
      ["POST", `${base}/test`, {}, "event_type"],
      ["POST", `${base}/resend-failed`, { since: "yesterday" }, "since"],
      ["POST", `${base}/resend-failed`, { since: "2020-01-01T00:00:00Z", extra: 1 }, ""],
    ];
    for (const [method, path, body, field] of bad) {
      const res = await me.org<{ detail: { loc: unknown[]; msg: string; type: string }[] }>(method, path, body);
      assert.equal(res.status, 422, `${method} ${path}: ${JSON.stringify(res.body)}`);
      assert.ok(Array.isArray(res.body.detail) && res.body.detail.length > 0, "FastAPI's detail list");
      for (const d of res.body.detail) assert.ok(Array.isArray(d.loc) && typeof d.msg === "string" && typeof d.type === "string");
      if (field) assert.ok(JSON.stringify(res.body.detail).includes(field), `${field} named: ${JSON.stringify(res.body)}`);
    }
  });
});

describeEachDatabase("webhooks out: temporary endpoints expire when idle", (getDb) => {
  const api = useWebhooksApi(getDb, { config: { WEBHOOK_TARGETS: "loopback", WEBHOOK_TEMP_ENDPOINT_IDLE_MINUTES: 0.05 } });
  let queue: JobQueue | undefined;
  before(async () => {
    queue = await openJobQueue(getDb(), silentLogger(), { pollingIntervalSeconds: 0.5 });
    await api().webhooks.startSweep(queue, { schedule: false });
  });
  after(async () => {
    await queue?.stop();
  });

  test("a temporary endpoint lives while kept alive and is deleted by the sweep job once idle (3 s here)", async () => {
    const me = await api().login();
    const rx = await startTestReceiver();
    const started = Date.now();
    const temp = await me.org<WebhookEndpointCreated>("POST", "/webhook-endpoints", { url: rx.url, temporary: true });
    assert.equal(temp.status, 200, JSON.stringify(temp.body));
    const expires = Date.parse(temp.body.expires_at!);
    assert.ok(expires - started > 2000 && expires - started < 4500, `expires in about 3 s: ${temp.body.expires_at}`);
    const stays = await me.org<WebhookEndpointCreated>("POST", "/webhook-endpoints", { url: rx.url });
    assert.equal(stays.body.expires_at, null);

    // Kept alive for twice its idle time: still there.
    let last = temp.body.expires_at!;
    while (Date.now() - started < 6000) {
      await sleep(1000);
      const kept = await me.org<WebhookEndpoint>("POST", `/webhook-endpoints/${temp.body.id}/keep-alive`);
      assert.equal(kept.status, 200, JSON.stringify(kept.body));
      assert.ok(Date.parse(kept.body.expires_at!) > Date.parse(last), "each keep-alive moves the expiry on");
      last = kept.body.expires_at!;
    }
    assert.equal((await me.org("GET", `/webhook-endpoints/${temp.body.id}`)).status, 200);

    // No more keep-alives: gone within its idle time and the sweep's delay.
    const deadline = Date.now() + 10_000;
    while ((await me.org("GET", `/webhook-endpoints/${temp.body.id}`)).status !== 404) {
      assert.ok(Date.now() < deadline, "the idle temporary endpoint is deleted");
      await sleep(200);
    }
    assert.ok(Date.now() >= Date.parse(last), "not before its expiry");
    assert.equal((await me.org("GET", `/webhook-endpoints/${stays.body.id}`)).status, 200, "an endpoint that is not temporary stays");
    const refused = await me.org<{ detail: string }>("POST", `/webhook-endpoints/${stays.body.id}/keep-alive`);
    assert.equal(refused.status, 409);
  });
});
