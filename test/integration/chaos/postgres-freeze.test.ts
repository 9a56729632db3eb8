import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { CLIENT_TIMEOUT_MARGIN_MS, openDatabase, type Database } from "../../../src/shared/db/database.js";
import { sweepPeriodMs } from "../../../src/shared/db/pool-bounds.js";
import { migrate } from "../../../src/shared/db/migrate.js";
import { eventually, startTestStack, type TestStack } from "../../helpers/stack.js";
import { startThrowawayPostgres } from "../../helpers/throwaway-postgres.js";

const BOUNDS = { statementTimeoutMs: 1000, connectTimeoutMs: 1000 };
/**
 * A request needs at most a connection and one statement before it knows: both bounds, the client's
 * margin, two of the pool's check periods after each bound (pool-bounds.ts), and slack for a loaded machine.
 */
const CHECK_MS = sweepPeriodMs({ statementMs: BOUNDS.statementTimeoutMs + CLIENT_TIMEOUT_MARGIN_MS, checkoutMs: BOUNDS.connectTimeoutMs });
const REQUEST_BOUND_MS = BOUNDS.connectTimeoutMs + BOUNDS.statementTimeoutMs + CLIENT_TIMEOUT_MARGIN_MS + 4 * CHECK_MS + 1000;
const FREEZE_MS = 10_000;

type Answer = { what: string; status: number; retryAfter: string | null; started: number; ms: number };

/**
 * Postgres frozen (SIGSTOP of every process of a throwaway cluster) for 10 s: the server stops
 * answering without closing anything, so only the services' own bounds (DATABASE_STATEMENT_TIMEOUT_MS,
 * DATABASE_CONNECT_TIMEOUT_MS) stand between a request and a hang. Every request made meanwhile is
 * answered 503 with Retry-After within the bound; /healthz (liveness, no I/O) answers 200 throughout;
 * /readyz answers 503 during the freeze and 200 again after, by itself.
 */
test("Postgres frozen for 10 s: requests 503 within the bound, /healthz 200 throughout, /readyz 503 then 200", {
  timeout: 120_000,
}, async (t) => {
  const pg = await startThrowawayPostgres();
  let database: Database | undefined;
  let stack: TestStack | undefined;
  t.after(async () => {
    pg.thaw();
    await stack?.close().catch(() => {});
    await database?.close().catch(() => {});
    pg.dispose();
  });
  database = await openDatabase({ url: pg.url, schema: "public", poolSize: 5, bounds: BOUNDS });
  await migrate(database);
  stack = await startTestStack(database, { sandbox: { applications: 0, webhookUrl: undefined as never } });
  const running = stack;
  const me = await running.login();
  const auth = { authorization: `Bearer ${me.accessToken}` };
  const apiOrigin = running.apiUrl.replace(/\/api\/v1$/, "");
  const proxyOrigin = running.proxyUrl.replace(/\/api\/v1$/, "");
  const requests: Record<string, () => Promise<Response>> = {
    "create position": () =>
      fetch(`${running.apiUrl}/org/${me.orgId}/position`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({ name: `Frozen ${randomBytes(3).toString("hex")}` }),
      }),
    "list positions": () => fetch(`${running.apiUrl}/org/${me.orgId}/position`, { headers: auth }),
    "list integrations": () => fetch(`${running.proxyUrl}/integrations`, { headers: auth }),
  };
  for (const [what, send] of Object.entries(requests)) assert.equal((await send()).status, 200, `${what} before the freeze`);

  const answers: Answer[] = [];
  const probes: Answer[] = [];
  const timed = async (what: string, send: () => Promise<Response>, into: Answer[]) => {
    const started = Date.now();
    const res = await send();
    await res.arrayBuffer();
    into.push({ what, status: res.status, retryAfter: res.headers.get("retry-after"), started, ms: Date.now() - started });
  };
  let frozenAt = 0;
  let thawedAt = 0;
  let stop = false;
  const loops = [
    ...Object.entries(requests).map(async ([what, send]) => {
      while (!stop) await timed(what, send, answers);
    }),
    (async () => {
      while (!stop) {
        for (const origin of [apiOrigin, proxyOrigin]) {
          await timed(`${origin} healthz`, () => fetch(`${origin}/healthz`), probes);
          await timed(`${origin} readyz`, () => fetch(`${origin}/readyz`), probes);
        }
        await sleep(100);
      }
    })(),
  ];
  try {
    await sleep(300);
    pg.freeze();
    frozenAt = Date.now();
    await sleep(FREEZE_MS);
    pg.thaw();
    thawedAt = Date.now();
    await eventually(
      "readiness back after the thaw",
      async () =>
        probes.some((p) => p.what.endsWith("readyz") && p.started > thawedAt && p.status === 200) &&
        answers.some((a) => a.started > thawedAt && a.status === 200)
          ? true
          : undefined,
      30_000,
    );
  } finally {
    stop = true;
    pg.thaw();
    await Promise.allSettled(loops);
  }

  // Made wholly inside the freeze (not the one in flight when it began, whose statement may have been answered).
  const inside = answers.filter((a) => a.started > frozenAt + 100 && a.started + a.ms < thawedAt);
  const summary = (list: Answer[]) => list.map((a) => `${a.what} ${a.status} ${a.ms} ms`);
  console.log(
    `postgres frozen ${FREEZE_MS} ms: ${inside.length} requests inside (slowest ${Math.max(...inside.map((a) => a.ms))} ms, bound ${REQUEST_BOUND_MS} ms), ${probes.length} probes`,
  );
  assert.ok(inside.length >= 6, `traffic ran during the freeze: ${summary(inside).join(", ")}`);
  assert.deepEqual(
    inside
      .filter((a) => a.status !== 503 || !(Number(a.retryAfter) > 0) || a.ms > REQUEST_BOUND_MS)
      .map((a) => `${a.what} ${a.status} ${a.ms} ms`),
    [],
    "every request inside the freeze: 503 with Retry-After within the bound",
  );
  const healthz = probes.filter((p) => p.what.endsWith("healthz"));
  assert.ok(healthz.filter((p) => p.started > frozenAt && p.started < thawedAt).length >= 4, "liveness was probed during the freeze");
  assert.deepEqual(
    healthz.filter((p) => p.status !== 200 || p.ms > 500).map((p) => `${p.what} ${p.status} ${p.ms} ms`),
    [],
    "/healthz answers 200 at once throughout",
  );
  const readyDuring = probes.filter((p) => p.what.endsWith("readyz") && p.started > frozenAt + 1500 && p.started + p.ms < thawedAt);
  assert.ok(readyDuring.length >= 2, "readiness was probed during the freeze");
  assert.deepEqual(new Set(readyDuring.map((p) => p.status)), new Set([503]), "/readyz answers 503 while Postgres is frozen");
  assert.ok(
    readyDuring.every((p) => p.ms < 3000),
    "/readyz answers within its own bound",
  );
});
