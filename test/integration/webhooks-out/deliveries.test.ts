import assert from "node:assert/strict";
import { test } from "node:test";
import type { Candidate } from "../../../src/contracts/recruiting/candidates.js";
import type { Interview } from "../../../src/contracts/recruiting/interviews.js";
import type { Position } from "../../../src/contracts/recruiting/positions.js";
import type { WebhookDeliveryList, WebhookEndpoint, WebhookMessage } from "../../../src/contracts/webhooks-out/endpoints.js";
import { describeEachDatabase } from "../../helpers/db.js";
import { type Caller, subscribe, useWebhooksApi } from "./harness.js";
import type { Received } from "./receiver.js";

const candidateBody = (n: number) => ({ name: `Grace ${n}`, email: `grace${n}@example.com`, phone: "+1 555 0100", language: "en" });

describeEachDatabase("webhooks out: deliveries", (getDb) => {
  const api = useWebhooksApi(getDb, {
    config: {
      WEBHOOK_TARGETS: "loopback",
      WEBHOOK_RETRY_SCHEDULE: "0s,50ms,100ms,100ms",
      WEBHOOK_TIMEOUT_MS: 1000,
      WEBHOOK_DISABLE_AFTER_SECONDS: 1,
    },
  });

  test("each event type of the recruiting API arrives signed, its data the API's answer", async () => {
    const me = await api().login();
    const { rx } = await subscribe(me);
    const position = (await me.org<Position>("POST", "/position", { name: "Data Engineer", min_score: 50 })).body;
    const renamed = (await me.org<Position>("PUT", `/position/${position.id}`, { department: "Data" })).body;
    const candidate = (await me.org<Candidate>("POST", `/positions/${position.id}/`, candidateBody(1))).body;
    const tagged = (await me.org<Candidate>("PUT", `/positions/${position.id}/candidates/${candidate.id}/`, { tags: ["x"] })).body;
    const interviewPath = `/positions/${position.id}/candidates/${candidate.id}/interview/`;
    await me.org("PUT", interviewPath, { status: "completed" });
    const graded = (await me.org<Interview>("PUT", interviewPath, { status: "graded", score: 80 })).body;

    const all = await rx.waitFor((d) => d.length >= 7);
    assert.deepEqual(
      all.map((d) => d.verifiedWith),
      all.map(() => [0]),
      "every delivery verifies with standardwebhooks",
    );
    assert.equal(new Set(all.map((d) => d.id)).size, 7, "one webhook-id per event");
    const byType = (type: string) => all.filter((d) => d.type === type).map((d) => d.data);
    assert.deepEqual(byType("position.created"), [position]);
    assert.deepEqual(byType("position.updated"), [renamed]);
    assert.deepEqual(byType("candidate.created"), [candidate]);
    const updates = byType("candidate.updated");
    assert.equal(updates.length, 2);
    assert.deepEqual(
      updates.find((c) => c["score"] === undefined),
      tagged,
    );
    assert.ok(
      updates.some((c) => c["score"] === 80),
      "grading updates the candidate",
    );
    const interviews = byType("interview.updated");
    assert.deepEqual(interviews.map((i) => i["status"]).sort(), ["completed", "graded"]);
    assert.deepEqual(
      interviews.find((i) => i["status"] === "graded"),
      { ...graded, position_id: position.id },
    );
    for (const d of all) {
      const body = JSON.parse(d.body) as { type: string; timestamp: string; data: unknown };
      assert.deepEqual(Object.keys(body), ["type", "timestamp", "data"]);
      assert.ok(Math.abs(Date.parse(body.timestamp) - Date.now()) < 60_000);
      assert.ok(Math.abs(Number(d.timestamp) - Date.now() / 1000) < 60);
    }
    // The event as delivered, from the API.
    const message = await me.org<WebhookMessage>("GET", `/webhook-messages/${all[0]!.id}`);
    assert.deepEqual(message.body, { id: all[0]!.id, test: false, ...(JSON.parse(all[0]!.body) as object) });
  });

  test("an endpoint gets only the types it subscribed to, and another organization's endpoints get nothing", async () => {
    const [me, other] = [await api().login(), await api().login()];
    const { rx: mine } = await subscribe(me, ["candidate.created"]);
    const { rx: theirs } = await subscribe(other);
    const position = (await me.org<Position>("POST", "/position", { name: "Analyst" })).body;
    await me.org("POST", `/positions/${position.id}/`, candidateBody(2));
    await mine.waitFor((d) => d.length >= 1);
    // The other org's own change, delivered to it, shows its dispatcher ran after ours.
    await other.org("POST", "/position", { name: "Theirs" });
    const got = await theirs.waitFor((d) => d.length >= 1);
    assert.deepEqual(
      got.map((d) => [d.type, d.data["name"]]),
      [["position.created", "Theirs"]],
    );
    assert.deepEqual(
      mine.deliveries.map((d) => d.type),
      ["candidate.created"],
    );
  });

  test("a rolled-back change sends nothing", async () => {
    const me = await api().login();
    const { rx } = await subscribe(me);
    const position = (await me.org<Position>("POST", "/position", { name: "Rollback" })).body;
    const a = (await me.org<Candidate>("POST", `/positions/${position.id}/`, candidateBody(3))).body;
    const b = (await me.org<Candidate>("POST", `/positions/${position.id}/`, candidateBody(4))).body;
    await rx.waitFor((d) => d.length >= 3);
    // One transaction: a's update is written (and its event recorded), then b's conflicts: all rolls back.
    const refused = await me.org("PUT", `/positions/${position.id}/`, [
      { id: a.id, tags: ["rolled back"] },
      { id: b.id, email: a.email },
    ]);
    assert.equal(refused.status, 409);
    const marker = (await me.org<Position>("PUT", `/position/${position.id}`, { name: "After" })).body;
    const all = await rx.waitFor((d) => d.some((x) => x.type === "position.updated"));
    // No order across events: compared as sets. Nothing for the rolled-back update.
    assert.deepEqual(all.map((d) => d.type).sort(), ["candidate.created", "candidate.created", "position.created", "position.updated"]);
    assert.equal(all.find((d) => d.type === "position.updated")!.data["name"], marker.name);
  });

  test("a receiver failing its first attempts gets the message later with the same webhook-id", async () => {
    const me = await api().login();
    const { rx, endpoint } = await subscribe(me);
    rx.answer = (_d, nth) => (nth <= 2 ? 503 : 200);
    const position = (await me.org<Position>("POST", "/position", { name: "Retry" })).body;
    const all = await rx.waitFor((d) => d.length >= 3);
    assert.deepEqual(
      all.map((d) => [d.id, d.type, d.verifiedWith]),
      [1, 2, 3].map(() => [all[0]!.id, "position.created", [0]]),
    );
    assert.equal(all[2]!.data["id"], position.id);
    assert.equal(all[0]!.body, all[2]!.body, "every attempt sends the same body");
    const list = await until(
      () => me.org<WebhookDeliveryList>("GET", `/webhook-endpoints/${endpoint.id}/deliveries`),
      (r) => r.body.items[0]?.status === "succeeded",
    );
    const [delivery] = list.body.items;
    assert.equal(delivery!.message_id, all[0]!.id);
    assert.deepEqual(
      delivery!.attempts.map((a) => [a.attempt, a.status_code, a.ok, a.response, a.manual]),
      [
        [3, 200, true, "ok", false],
        [2, 503, false, "no: 503", false],
        [1, 503, false, "no: 503", false],
      ],
    );
    assert.equal(list.body.next_cursor, null);
  });

  test("any message can be re-sent, with its webhook-id", async () => {
    const me = await api().login();
    const { rx, endpoint } = await subscribe(me);
    await me.org("POST", "/position", { name: "Again" });
    const [first] = await rx.waitFor((d) => d.length >= 1);
    const resent = await me.org<{ message_id: string }>("POST", `/webhook-endpoints/${endpoint.id}/deliveries/${first!.id}/resend`);
    assert.equal(resent.status, 202);
    const both = await rx.waitFor((d) => d.length >= 2);
    assert.deepEqual([both[1]!.id, both[1]!.body, both[1]!.verifiedWith], [first!.id, first!.body, [0]]);
    const list = await until(
      () => me.org<WebhookDeliveryList>("GET", `/webhook-endpoints/${endpoint.id}/deliveries`),
      (r) => r.body.items[0]?.attempts.length === 2 && r.body.items[0].status === "succeeded",
    );
    assert.deepEqual(
      list.body.items[0]!.attempts.map((a) => [a.attempt, a.manual]),
      [
        [2, true],
        [1, false],
      ],
    );
    const other = await api().login();
    assert.equal((await other.org("POST", `/webhook-endpoints/${endpoint.id}/deliveries/${first!.id}/resend`)).status, 404);
  });

  test("after a secret rotation deliveries verify with the old secret and the new one", async () => {
    const me = await api().login();
    const { rx, endpoint } = await subscribe(me);
    const rotated = await me.org<{ secret: string }>("POST", `/webhook-endpoints/${endpoint.id}/rotate-secret`);
    rx.secrets.push(rotated.body.secret);
    await me.org("POST", "/position", { name: "Rotated" });
    const [d] = await rx.waitFor((all) => all.length >= 1);
    assert.deepEqual(d!.verifiedWith, [0, 1], "both the old and the new secret verify it during the overlap");
    assert.equal(d!.signature.split(" ").length, 2);
  });

  test("an endpoint failing for the stated time is disabled and says why; 410 Gone disables at once", async () => {
    const me = await api().login();
    const { rx, endpoint } = await subscribe(me);
    rx.answer = () => 500;
    const { rx: gone, endpoint: goneEndpoint } = await subscribe(me);
    gone.answer = () => 410;
    await me.org("POST", "/position", { name: "First" });
    await rx.waitFor((d) => d.length >= 4); // the whole schedule: four attempts, all 500
    const failing = await until(
      () => me.org<WebhookEndpoint>("GET", `/webhook-endpoints/${endpoint.id}`),
      (r) => r.body.failing_since !== null,
    );
    assert.equal(failing.body.disabled, false, "failing, not yet for the stated time");
    const goneNow = await until(
      () => me.org<WebhookEndpoint>("GET", `/webhook-endpoints/${goneEndpoint.id}`),
      (r) => r.body.disabled,
    );
    assert.deepEqual(
      [goneNow.body.disabled, goneNow.body.disabled_reason],
      [true, "The endpoint answered 410 Gone: it asked for no more deliveries"],
    );
    assert.equal(gone.deliveries.length, 1, "not retried");

    // Still failing once the stated time (1 s here) has passed since the first failure: disabled.
    await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(failing.body.failing_since!) + 1100 - Date.now())));
    await me.org("POST", "/position", { name: "Second" });
    const disabled = await until(
      () => me.org<WebhookEndpoint>("GET", `/webhook-endpoints/${endpoint.id}`),
      (r) => r.body.disabled,
    );
    assert.equal(disabled.body.disabled, true);
    assert.match(disabled.body.disabled_reason!, /^Every delivery attempt failed since \S+Z \(the last: HTTP 500\)$/);
    const delivered = rx.deliveries.length;
    await me.org("POST", "/position", { name: "Third" });
    const [third] = await subscribeOnce(me);
    assert.ok(third, "a fresh endpoint still gets events");
    assert.equal(rx.deliveries.length, delivered, "a disabled endpoint receives nothing");

    // Enabled again by a person: the reason and the streak go.
    const enabled = await me.org<WebhookEndpoint>("PATCH", `/webhook-endpoints/${endpoint.id}`, { disabled: false });
    assert.deepEqual([enabled.body.disabled, enabled.body.disabled_reason, enabled.body.failing_since], [false, null, null]);
  });

  test("a slow endpoint holds back no other endpoint's deliveries", async () => {
    const me = await api().login();
    const { rx: slow } = await subscribe(me);
    const { rx: fast } = await subscribe(me);
    // Answers after the attempt's timeout (1 s): every attempt to it waits the whole second.
    slow.answer = () => new Promise((r) => setTimeout(() => r(200), 1500));
    const sent: number[] = [];
    for (let i = 0; i < 20; i++) {
      await me.org("POST", "/position", { name: `P${i}` });
      sent.push(Date.now());
    }
    const got = await fast.waitFor((d) => d.length >= 20);
    const late = got.map((d, i) => d.at - sent[i]!);
    assert.ok(Math.max(...late) < 900, `the fast endpoint got each event before the slow one's attempt could end: ${late.join(", ")} ms`);
    assert.ok(slow.deliveries.length > 0);
  });
});

/** A receiver subscribed now, and the first delivery it gets (of the next event). */
async function subscribeOnce(who: Caller): Promise<Received[]> {
  const { rx } = await subscribe(who);
  await who.org("POST", "/position", { name: "Probe" });
  return rx.waitFor((d) => d.length >= 1);
}

/** Calls `fetch` until `done` holds for its answer (every 25 ms, up to 5 s), answering the last. */
async function until<T>(fetch: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  let last = await fetch();
  for (let i = 0; i < 200 && !done(last); i++) {
    await new Promise((r) => setTimeout(r, 25));
    last = await fetch();
  }
  return last;
}
