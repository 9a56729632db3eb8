import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { signWebhookBody } from "../../../src/shared/upstream/webhook-signature.js";
import { openDatabase, type Database } from "../../../src/shared/db/database.js";
import { migrate } from "../../../src/shared/db/migrate.js";
import { eventually, startTestStack, type TestStack } from "../../helpers/stack.js";
import { startThrowawayPostgres } from "../../helpers/throwaway-postgres.js";

type Outcome = {
  kind: "api" | "webhook";
  status: number;
  retryAfter: string | null;
  body: string;
  started: number;
  ended: number;
  id?: string;
};

/**
 * Postgres stopped for a few seconds under recruiting-API writes and signed webhook deliveries, on a
 * throwaway cluster of the test's own (never the machine's). Every answer is a success or a 503
 * with Retry-After (never a 500); requests made wholly inside the outage are all 503; every
 * acknowledged write is there afterwards; readiness fails during the outage and comes back alone.
 */
test("Postgres outage under API and webhook traffic: 503 with Retry-After, nothing acknowledged lost, readiness recovers", {
  timeout: 120_000,
}, async (t) => {
  const pg = await startThrowawayPostgres();
  let database: Database | undefined;
  let stack: TestStack | undefined;
  // One hook, in order (node runs after-hooks first-registered first): the stack, then its pool, then
  // the cluster. Each step is bounded, so a step that hangs is named instead of timing the test out,
  // and the cluster is always removed.
  t.after(async () => {
    const hung: string[] = [];
    const step = async (what: string, fn: () => Promise<unknown>) => {
      const t0 = Date.now();
      const done = await Promise.race([fn().then(() => true), sleep(15_000).then(() => false)]);
      if (!done) hung.push(what);
      if (process.env["CHAOS_DEBUG"]) console.log(`teardown ${what}: ${Date.now() - t0} ms`);
    };
    try {
      if (stack) {
        const s = stack;
        await step("sandbox", () => s.sandbox.close());
        await step("proxy", () => s.proxy.close());
        await step("recruiting API", () => s.recruiting.close());
        await step("job queue", () => s.queue.stop());
        await step("token service", () => s.identity.close());
      }
      await step("database pool", async () => database?.close());
    } finally {
      pg.dispose();
    }
    assert.deepEqual(hung, [], "teardown steps that did not finish within 15 s");
  });
  database = await openDatabase({ url: pg.url, schema: "public", poolSize: 5 });
  const db = database;
  await migrate(db);
  stack = await startTestStack(db, { sandbox: { applications: 5, webhookUrl: undefined as never } });
  const running = stack;
  const me = await running.login(running.sandbox.demoOrgId);
  const positions = `${running.apiUrl}/org/${me.orgId}/position`;
  const readyz = `${running.proxyUrl.replace(/\/api\/v1$/, "")}/readyz`;
  const apiReadyz = `${running.apiUrl.replace(/\/api\/v1$/, "")}/readyz`;

  const outcomes: Outcome[] = [];
  let stopping = false;
  async function apiWrite(): Promise<Outcome> {
    const started = Date.now();
    const res = await fetch(positions, {
      method: "POST",
      headers: { authorization: `Bearer ${me.accessToken}`, "content-type": "application/json" },
      body: JSON.stringify({ name: `Outage ${randomBytes(4).toString("hex")}` }),
      signal: AbortSignal.timeout(30_000),
    });
    const body = await res.text();
    const id = res.ok ? (JSON.parse(body) as { id: string }).id : undefined;
    return {
      kind: "api",
      status: res.status,
      retryAfter: res.headers.get("retry-after"),
      body,
      started,
      ended: Date.now(),
      ...(id ? { id } : {}),
    };
  }
  async function webhook(): Promise<Outcome> {
    const id = randomBytes(12).toString("base64url");
    const raw = JSON.stringify({
      id,
      type: "connection-flow-failed",
      data: { integration_tool: "greenhouse", integration_category: "ATS", end_user: { origin_id: me.orgId } },
    });
    const started = Date.now();
    const res = await fetch(`${running.proxyUrl}/webhooks/upstream/connection-flow-failed`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-kombo-signature": signWebhookBody(raw, running.sandbox.webhookSecret) },
      body: raw,
      signal: AbortSignal.timeout(30_000),
    });
    const body = await res.text();
    return { kind: "webhook", status: res.status, retryAfter: res.headers.get("retry-after"), body, started, ended: Date.now(), id };
  }
  const workers = Array.from({ length: 4 }, async (_, i) => {
    while (!stopping) {
      outcomes.push(await (i % 2 === 0 ? apiWrite() : webhook()));
      await sleep(20);
    }
  });

  let down = 0;
  let upStarting = 0;
  let readyDuring: number[] = [];
  let recoveredIn = 0;
  try {
    await sleep(1500);
    await pg.stop();
    down = Date.now();
    await sleep(1000);
    readyDuring = [(await fetch(readyz)).status, (await fetch(apiReadyz)).status];
    await sleep(3000);
    upStarting = Date.now();
    await pg.start();
    recoveredIn = await eventually(
      "readiness to come back by itself",
      async () => ((await fetch(readyz)).status === 200 && (await fetch(apiReadyz)).status === 200 ? Date.now() - upStarting : undefined),
      30_000,
    );
    await sleep(1500);
  } finally {
    // Whatever happened, the traffic stops before the stack and the cluster go.
    stopping = true;
    await Promise.allSettled(workers);
  }
  await Promise.all(workers);

  const byStatus: Record<string, number> = {};
  for (const o of outcomes) byStatus[`${o.kind} ${o.status}`] = (byStatus[`${o.kind} ${o.status}`] ?? 0) + 1;
  const inside = outcomes.filter((o) => o.started > down && o.ended < upStarting);
  const acknowledged = outcomes.filter((o) => o.status === 201 || o.status === 200);
  const apiIds = acknowledged.filter((o) => o.kind === "api").map((o) => o.id!);
  const eventIds = acknowledged.filter((o) => o.kind === "webhook").map((o) => o.id!);
  const [{ n: positionsStored }] = (await db.query<{ n: number }>("select count(*)::int as n from positions where id = any($1::uuid[])", [
    apiIds,
  ])) as [{ n: number }];
  const [{ n: eventsStored }] = (await db.query<{ n: number }>("select count(*)::int as n from webhook_events where id = any($1)", [
    eventIds,
  ])) as [{ n: number }];
  console.log(
    `postgres outage: ${outcomes.length} requests ${JSON.stringify(byStatus)}; inside the outage ${inside.length} (${inside.filter((o) => o.status === 503).length} × 503); ` +
      `readiness during ${readyDuring.join("/")}, back ${recoveredIn} ms after start; acknowledged ${apiIds.length} positions (${positionsStored} stored), ${eventIds.length} events (${eventsStored} stored), lost ${apiIds.length - positionsStored + eventIds.length - eventsStored}`,
  );

  const bad = outcomes.filter((o) => !(o.status === 200 || o.status === 201 || o.status === 503));
  assert.deepEqual(
    bad.map((o) => `${o.kind} ${o.status} ${o.body.slice(0, 200)}`),
    [],
    "only successes and 503s",
  );
  for (const o of outcomes.filter((x) => x.status === 503)) {
    assert.ok(Number(o.retryAfter) > 0, "a 503 carries Retry-After");
    assert.equal(typeof (JSON.parse(o.body) as { detail: unknown }).detail, "string", "a 503 has the spec's error shape");
    assert.doesNotMatch(o.body, /ECONN|postgres|at .*\.ts/i, "no internals in the answer");
  }
  assert.ok(inside.length > 0, "traffic ran during the outage");
  assert.ok(
    inside.every((o) => o.status === 503),
    "inside the outage every answer is 503",
  );
  assert.deepEqual(readyDuring, [503, 503], "readiness fails during the outage");
  assert.ok(
    outcomes.some((o) => o.started > upStarting + recoveredIn && (o.status === 200 || o.status === 201)),
    "traffic succeeds again after",
  );
  assert.equal(positionsStored, apiIds.length, "every acknowledged position is stored");
  assert.equal(eventsStored, eventIds.length, "every acknowledged webhook event is stored");
});
