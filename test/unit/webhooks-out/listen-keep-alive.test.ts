import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { test } from "node:test";
import { keepAlive } from "../../../src/cli/commands/webhooks-listen.js";
import type { Output } from "../../../src/cli/output.js";

/** `webhooks listen`'s keep-alive loop, with the server's idle time 3 s: pings before each expiry, goes on after a failure, stops. */
test("listen keeps its temporary endpoint alive: a keep-alive before each expiry, again after a failed one, none after stop", async () => {
  const IDLE_MS = 3000;
  const pings: number[] = [];
  const notes: string[] = [];
  let expiresAt = Date.now() + IDLE_MS;
  let failNext = false;
  const out = { note: (m: string) => notes.push(m) } as unknown as Output;
  const alive = keepAlive(
    { out },
    async () => {
      const now = Date.now();
      assert.ok(now < expiresAt, `each keep-alive comes before the expiry (${expiresAt - now} ms left)`);
      pings.push(now);
      if (failNext) {
        failNext = false;
        throw new Error("503 from the API");
      }
      expiresAt = now + IDLE_MS;
      return { expires_at: new Date(expiresAt).toISOString() };
    },
    new Date(expiresAt).toISOString(),
  );
  await sleep(2500);
  assert.ok(pings.length >= 2, `kept alive: ${pings.length} keep-alives in 2.5 s`);
  failNext = true;
  const before = pings.length;
  await sleep(2600);
  assert.ok(pings.length >= before + 2, "a failed keep-alive is tried again");
  assert.match(notes.join("\n"), /keeping the temporary endpoint alive failed \(trying again\)/);
  alive.stop();
  const stopped = pings.length;
  await sleep(1500);
  assert.equal(pings.length, stopped, "no keep-alive after stop");
});
