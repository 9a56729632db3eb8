import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { buildRecruitingApp } from "../../../src/services/recruiting/app.js";
import { CLIENT_TIMEOUT_MARGIN_MS, openDatabase, type Database } from "../../../src/shared/db/database.js";
import { migrate } from "../../../src/shared/db/migrate.js";
import { sweepPeriodMs } from "../../../src/shared/db/pool-bounds.js";
import type { App } from "../../../src/shared/http/create-app.js";
import { startTestIdentity, type TestIdentity } from "../../helpers/auth.js";
import { silentLogger, testConfig } from "../../helpers/config.js";
import { startThrowawayPostgres } from "../../helpers/throwaway-postgres.js";

/** The workers' bound stays long; the request path's is short (DATABASE_REQUEST_STATEMENT_TIMEOUT_MS). */
const BOUNDS = { statementTimeoutMs: 20_000, requestStatementTimeoutMs: 1000, connectTimeoutMs: 1000 };
const CHECK_MS = sweepPeriodMs({
  statementMs: BOUNDS.requestStatementTimeoutMs + CLIENT_TIMEOUT_MARGIN_MS,
  checkoutMs: BOUNDS.connectTimeoutMs,
});
/** A request needs at most a connection and one statement: both bounds, the margin, the sweeps, and slack. */
const REQUEST_BOUND_MS = BOUNDS.connectTimeoutMs + BOUNDS.requestStatementTimeoutMs + CLIENT_TIMEOUT_MARGIN_MS + 4 * CHECK_MS + 1000;
const FREEZE_MS = 8000;

type Answer = { what: string; status: number; retryAfter: string | null; started: number; ms: number };

/**
 * Issue 38, defect 6: a request must not wait for the workers' statement bound when Postgres stops
 * answering. With the workers' bound at 20 s (their statements may run long) and the request
 * path's at 1 s, every recruiting API and token service request made during an 8 s freeze (SIGSTOP of a throwaway
 * cluster) is answered 503 with Retry-After within the request bound, long before the thaw, while
 * a worker's statement sent during the freeze is still waiting after it and completes once
 * Postgres answers again.
 */
test("Postgres frozen: API requests 503 within the request path's bound; a worker's statement keeps its longer one", {
  timeout: 120_000,
}, async (t) => {
  const pg = await startThrowawayPostgres();
  let database: Database | undefined;
  let identity: TestIdentity | undefined;
  let app: App | undefined;
  t.after(async () => {
    pg.thaw();
    await app?.close().catch(() => {});
    await identity?.close().catch(() => {});
    await database?.close().catch(() => {});
    pg.dispose();
  });
  database = await openDatabase({ url: pg.url, schema: "public", poolSize: 5, bounds: BOUNDS });
  await migrate(database);
  identity = await startTestIdentity(database);
  app = await buildRecruitingApp({ config: testConfig(), database, logger: silentLogger(), verify: identity.verify });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const api = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1`;
  const me = await identity.login();
  const headers = { authorization: `Bearer ${me.accessToken}`, "content-type": "application/json" };
  const position = await fetch(`${api}/org/${me.orgId}/position`, { method: "POST", headers, body: JSON.stringify({ name: "Frozen" }) });
  assert.equal(position.status, 200);
  const { id: positionId } = (await position.json()) as { id: string };
  const requests: Record<string, () => Promise<Response>> = {
    "create position": () =>
      fetch(`${api}/org/${me.orgId}/position`, { method: "POST", headers, body: JSON.stringify({ name: "Frozen" }) }),
    "list candidates": () => fetch(`${api}/org/${me.orgId}/positions/${positionId}/`, { headers }),
    "update position": () => fetch(`${api}/org/${me.orgId}/position/${positionId}`, { method: "PUT", headers, body: "{}" }),
    // The token service answers callers too: its statements run on the request path's pool.
    "password grant": () =>
      fetch(`${identity!.authUrl}/protocol/openid-connect/token`, {
        method: "POST",
        body: new URLSearchParams({ grant_type: "password", client_id: "hirebridge", username: me.username, password: me.password }),
      }),
  };
  for (const [what, send] of Object.entries(requests)) assert.equal((await send()).status, 200, `${what} before the freeze`);

  const answers: Answer[] = [];
  let stop = false;
  const loops = Object.entries(requests).map(async ([what, send]) => {
    while (!stop) {
      const started = Date.now();
      const res = await send();
      await res.arrayBuffer();
      answers.push({ what, status: res.status, retryAfter: res.headers.get("retry-after"), started, ms: Date.now() - started });
    }
  });
  let frozenAt = 0;
  let thawedAt = 0;
  let worker: Promise<{ ok: boolean; at: number }> | undefined;
  try {
    await database.query("select 1"); // a warm connection of the workers' pool, so the next statement needs no new one
    await sleep(300);
    pg.freeze();
    frozenAt = Date.now();
    const db = database;
    worker = db.query("select 1 as n").then(
      () => ({ ok: true, at: Date.now() }),
      () => ({ ok: false, at: Date.now() }),
    );
    await sleep(FREEZE_MS);
    pg.thaw();
    thawedAt = Date.now();
  } finally {
    stop = true;
    pg.thaw();
    await Promise.allSettled(loops);
  }

  // Started inside the freeze early enough to be answered, within the bound, before the thaw.
  const inside = answers.filter((a) => a.started > frozenAt + 100 && a.started < thawedAt - REQUEST_BOUND_MS);
  console.log(
    `frozen ${FREEZE_MS} ms: ${inside.length} requests inside (slowest ${Math.max(...inside.map((a) => a.ms))} ms, bound ${REQUEST_BOUND_MS} ms)`,
  );
  assert.ok(inside.length >= 4, `traffic ran during the freeze: ${inside.map((a) => `${a.what} ${a.status} ${a.ms} ms`).join(", ")}`);
  // A loop whose request hangs through the freeze starts nothing inside it: each kind must answer there.
  assert.deepEqual(
    Object.keys(requests).filter((what) => !inside.some((a) => a.what === what)),
    [],
    "each kind of request was answered inside the freeze",
  );
  assert.deepEqual(
    inside
      .filter((a) => a.status !== 503 || !(Number(a.retryAfter) > 0) || a.ms > REQUEST_BOUND_MS)
      .map((a) => `${a.what} ${a.status} ${a.ms} ms`),
    [],
    "every request inside the freeze: 503 with Retry-After within the request path's bound",
  );
  const done = await worker!;
  assert.ok(done.ok, "the worker's statement was not cut at the request bound: it completed once Postgres answered");
  assert.ok(done.at >= thawedAt, `it waited through the freeze (answered ${done.at - thawedAt} ms after the thaw)`);
});
