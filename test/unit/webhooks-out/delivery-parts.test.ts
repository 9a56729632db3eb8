import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, test } from "node:test";
import { Webhook } from "standardwebhooks";
import { healthOf } from "../../../src/services/webhooks-out/dispatcher.js";
import type { ResultRow } from "../../../src/services/webhooks-out/dispatch.repository.js";
import { nextAttemptAt, parseSchedule, retryAfterMs } from "../../../src/services/webhooks-out/schedule.js";
import { createSender } from "../../../src/services/webhooks-out/sender.js";
import { newSecret, signatureHeader } from "../../../src/services/webhooks-out/signing.js";
import { refusedAddress, refusedUrl, type Resolve, targetPolicyOf } from "../../../src/services/webhooks-out/targets.js";

const servers: { close(): void; closeAllConnections(): void }[] = [];
after(() => {
  for (const s of servers) {
    s.closeAllConnections();
    s.close();
  }
});

/** A local HTTP server answering with `handler`; its base URL. */
async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

test("signatures verify with the standardwebhooks package, with either secret during a rotation", () => {
  const [current, previous] = [newSecret(), newSecret()];
  assert.match(current, /^whsec_[A-Za-z0-9+/]{43}=$/);
  const body = '{"type":"candidate.created","timestamp":"2026-01-01T00:00:00.000Z","data":{"id":"x"}}';
  const ts = Math.floor(Date.now() / 1000);
  const header = signatureHeader([current, previous], "msg-1", ts, body);
  const headers = { "webhook-id": "msg-1", "webhook-timestamp": String(ts), "webhook-signature": header };
  for (const secret of [current, previous]) assert.deepEqual(new Webhook(secret).verify(body, headers), JSON.parse(body));
  assert.throws(() => new Webhook(newSecret()).verify(body, headers));
  assert.throws(() => new Webhook(current).verify(`${body} `, headers), "a changed body does not verify");
});

test("the retry schedule: parsed delays, the next attempt after each failure, Retry-After honoured, then none", () => {
  const schedule = parseSchedule("0s,5s,5m,30m,2h,5h,10h");
  assert.deepEqual(schedule, [0, 5000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000]);
  const now = 1_000_000;
  const next = nextAttemptAt(schedule, 1, now, null)!.getTime() - now;
  assert.ok(next >= 5000 && next <= 5500, `5 s plus up to 10% jitter, got ${next}`);
  assert.equal(nextAttemptAt(schedule, 1, now, 60_000)!.getTime() - now, 60_000, "a longer Retry-After wins");
  assert.equal(nextAttemptAt(schedule, 7, now, null), null, "after the seventh attempt: given up");
  assert.deepEqual([retryAfterMs("120", 0), retryAfterMs(undefined, 0), retryAfterMs("soon", 0)], [120_000, null, null]);
});

test("targets: only public unicast addresses in production, loopback too on the embedded default", () => {
  assert.equal(targetPolicyOf({}), "loopback");
  assert.equal(targetPolicyOf({ DATABASE_URL: "postgres://db/x" }), "public", "the production shape refuses private targets by default");
  assert.equal(targetPolicyOf({ DATABASE_URL: "postgres://db/x", WEBHOOK_TARGETS: "any" }), "any");
  const refused = [
    "127.0.0.1",
    "10.1.2.3",
    "172.16.0.1",
    "192.168.0.1",
    "169.254.169.254",
    "100.64.0.1",
    "0.0.0.0",
    "::1",
    "fe80::1",
    "fd00:ec2::254",
    "::ffff:10.0.0.1",
    "2002:7f00:1::",
    "224.0.0.1",
  ];
  for (const a of refused) assert.ok(refusedAddress(a, "public"), `${a} is refused`);
  assert.equal(refusedAddress("93.184.216.34", "public"), null);
  assert.equal(refusedAddress("2606:2800:220:1:248:1893:25c8:1946", "public"), null);
  assert.equal(refusedAddress("127.0.0.1", "loopback"), null);
  assert.equal(refusedAddress("::1", "loopback"), null);
  assert.ok(refusedAddress("10.0.0.1", "loopback"), "loopback mode still refuses private addresses");
  assert.equal(refusedAddress("10.0.0.1", "any"), null);
});

test("at creation the URL's host is resolved and every address must be allowed", async () => {
  const dns: Resolve = async (h) => (h === "ok.test" ? [{ address: "93.184.216.34", family: 4 }] : [{ address: "10.0.0.9", family: 4 }]);
  assert.equal(await refusedUrl("https://ok.test/h", "public", dns), null);
  assert.match((await refusedUrl("https://in.test/h", "public", dns))!, /in\.test resolves to 10\.0\.0\.9, a private address/);
  assert.match((await refusedUrl("http://ok.test/h", "public", dns))!, /https/);
  assert.equal(await refusedUrl("http://localhost:3000/hooks", "loopback"), null, "the embedded default takes a local receiver");
});

test("at delivery a host that now resolves to a refused address (DNS rebinding) is not connected to", async () => {
  let reached = 0;
  const base = await serve((_req, res) => {
    reached++;
    res.end("ok");
  });
  const port = new URL(base).port;
  // Resolved as public when the endpoint was saved; now it answers with this machine's address.
  const rebinding: Resolve = async () => [{ address: "127.0.0.1", family: 4 }];
  const sender = createSender({ policy: "public", timeoutMs: 2000, resolve: rebinding });
  const byName = await sender.send(`http://rebind.test:${port}/x`, {}, "{}");
  assert.equal(byName.ok, false);
  assert.equal(byName.statusCode, null);
  assert.match(byName.error!, /refused: rebind\.test resolves to no allowed address \(127\.0\.0\.1 is a loopback address\)/);
  const literal = await sender.send(`${base}/x`, {}, "{}");
  assert.match(literal.error!, /refused: 127\.0\.0\.1 is a loopback address/);
  assert.equal(reached, 0, "no request reached the local server");
  await sender.close();

  const local = createSender({ policy: "loopback", timeoutMs: 2000 });
  assert.equal((await local.send(`${base}/x`, {}, "{}")).ok, true, "the embedded default delivers to loopback");
  await local.close();
  assert.equal(reached, 1);
});

test("redirects are not followed, a slow answer times out, and the answer's start is kept", async () => {
  const hits: string[] = [];
  const base = await serve((req, res) => {
    hits.push(req.url!);
    if (req.url === "/moved") res.writeHead(302, { location: "/elsewhere" }).end();
    else if (req.url === "/slow") setTimeout(() => res.end("late"), 1500).unref();
    else res.writeHead(503, { "retry-after": "7" }).end("x".repeat(5000));
  });
  const sender = createSender({ policy: "loopback", timeoutMs: 300 });
  const moved = await sender.send(`${base}/moved`, {}, "{}");
  assert.deepEqual([moved.ok, moved.statusCode, moved.error], [false, 302, "redirects are not followed"]);
  const slow = await sender.send(`${base}/slow`, {}, "{}");
  assert.deepEqual([slow.ok, slow.statusCode], [false, null]);
  assert.match(slow.error!, /timeout/);
  assert.ok(slow.latencyMs < 1200, `gave up after about the timeout, not the answer (${slow.latencyMs} ms)`);
  const busy = await sender.send(`${base}/busy`, {}, "{}");
  assert.deepEqual([busy.statusCode, busy.response!.length, busy.retryAfterMs], [503, 1024, 7000]);
  assert.deepEqual(hits, ["/moved", "/slow", "/busy"], "the redirect's target was never asked for");
  await sender.close();
});

test("an endpoint's streak: a success clears it, the failures after the last success start it, 410 is noted", () => {
  const row = (e: string, at: string, ok: boolean, s: number | null): ResultRow => ({
    m: "m",
    e,
    n: 1,
    at,
    s,
    ok,
    ms: 1,
    err: s === null ? "timeout" : null,
    body: null,
    manual: false,
    next: null,
    chain: 0,
    queued: false,
    deferred: false,
    h: null,
  });
  const health = healthOf([
    row("a", "2026-01-01T00:00:03Z", false, 500),
    row("a", "2026-01-01T00:00:01Z", true, 200),
    row("a", "2026-01-01T00:00:02Z", false, null),
    row("b", "2026-01-01T00:00:01Z", false, 410),
  ]);
  assert.deepEqual(health, [
    { e: "a", recovered: true, failing_from: "2026-01-01T00:00:02Z", gone: false, last: "HTTP 500" },
    { e: "b", recovered: false, failing_from: "2026-01-01T00:00:01Z", gone: true, last: "HTTP 410" },
  ]);
});
