/**
 * drainConnections, the first step of every service's shutdown (src/runtime/stack.ts): new
 * connections are refused at once, a request arriving on an open keep-alive connection is answered
 * in full with `Connection: close`, a request in flight finishes, and a connection left idle is
 * closed after the grace period. The scale-out test shows the same through real processes.
 */
import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { Client } from "undici";
import { createApp, type App } from "../../../src/shared/http/create-app.js";
import { drainConnections } from "../../../src/shared/http/drain.js";
import { silentLogger } from "../../helpers/config.js";

let app: App;
let origin: string;

before(async () => {
  app = createApp({ service: "drain-test", logger: silentLogger() });
  app.get("/fast", async () => ({ ok: true }));
  app.get("/slow", async () => {
    await sleep(300);
    return { ok: "slow" };
  });
  await app.listen({ host: "127.0.0.1", port: 0 });
  origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});
after(async () => {
  await app.close();
});

test("a draining server refuses new connections and answers what its open connections bring, then closes them", async () => {
  // Three keep-alive connections: one busy when the drain starts, one reused during it, one left idle.
  const busy = new Client(origin);
  const reused = new Client(origin);
  const idle = new Client(origin);
  try {
    for (const c of [busy, reused, idle]) assert.equal((await c.request({ path: "/fast", method: "GET" })).statusCode, 200);
    const inFlight = busy.request({ path: "/slow", method: "GET" });
    await sleep(50);
    const startedAt = Date.now();
    const drained = drainConnections(app.server, { idleGraceMs: 400 });

    await assert.rejects(fetch(`${origin}/fast`), (err: Error & { cause?: { code?: string } }) => err.cause?.code === "ECONNREFUSED");
    const during = await reused.request({ path: "/fast", method: "GET" });
    assert.equal(during.statusCode, 200);
    assert.deepEqual(await during.body.json(), { ok: true });
    assert.equal(during.headers["connection"], "close", "the client is told not to send another request on it");

    const slow = await inFlight;
    assert.equal(slow.statusCode, 200);
    assert.deepEqual(await slow.body.json(), { ok: "slow" });

    await drained;
    const took = Date.now() - startedAt;
    assert.ok(took >= 350 && took < 2000, `the idle connection was closed after the grace period (${took} ms)`);
    assert.equal(app.server.listening, false);
    // The app closes at once afterwards: nothing is left open.
    const closing = Date.now();
    await app.close();
    assert.ok(Date.now() - closing < 1000);
  } finally {
    await Promise.all([busy.destroy(), reused.destroy(), idle.destroy()]);
  }
});
