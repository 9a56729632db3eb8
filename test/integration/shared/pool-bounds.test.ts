import assert from "node:assert/strict";
import { test } from "node:test";
import { sql } from "drizzle-orm";
import pg from "pg";
import { DEFAULT_DATABASE_BOUNDS, openDatabase } from "../../../src/shared/db/database.js";
import { boundPool, sweepPeriodMs } from "../../../src/shared/db/pool-bounds.js";
import { isStorageUnavailable } from "../../../src/shared/db/unavailable.js";
import { TEST_DATABASE_URL } from "../../helpers/db.js";

const BOUNDS = { statementMs: 400, checkoutMs: 400 };
/** The latest a bound may fire: two sweep periods after it, and slack for a loaded machine. */
const LATEST_MS = BOUNDS.statementMs + 2 * sweepPeriodMs(BOUNDS) + 1_000;

/**
 * The pool's bounds without a timer per statement (pool-bounds.ts), on the machine's Postgres. The
 * server's statement_timeout is left off here, so the only thing that can end `pg_sleep` early is
 * the client's own bound: the stand-in for a server that answers nothing.
 */
async function onBoundedPool(max: number, work: (p: { pool: pg.Pool; exempt: WeakSet<pg.ClientBase> }) => Promise<void>) {
  const pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, max });
  pool.on("error", () => {});
  pool.on("connect", (client) => client.on("error", () => {}));
  const exempt = new WeakSet<pg.ClientBase>();
  const stop = boundPool(pool, BOUNDS, exempt);
  try {
    await work({ pool, exempt });
  } finally {
    stop();
    await pool.end();
  }
}

const timed = async <T>(work: () => Promise<T>) => {
  const started = Date.now();
  const outcome = await work().then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  return { ...outcome, ms: Date.now() - started };
};

test("a statement unanswered past the bound fails as unavailable, its connection is dropped, the pool goes on", () =>
  onBoundedPool(2, async ({ pool }) => {
    const slow = await timed(() => pool.query("select pg_sleep(5)"));
    assert.equal(slow.ok, false);
    assert.ok(!slow.ok && isStorageUnavailable(slow.error), `a 503, not a 500: ${String(!slow.ok && slow.error)}`);
    assert.equal((slow as { error: { code?: string } }).error.code, "ETIMEDOUT");
    assert.ok(slow.ms >= BOUNDS.statementMs && slow.ms < LATEST_MS, `failed after ${slow.ms} ms`);
    // The dropped client is gone from the pool; the next statement gets a working one.
    const next = await pool.query<{ n: number }>("select 7 as n");
    assert.equal(next.rows[0]!.n, 7);
    // A statement inside the bound is left alone.
    const quick = await timed(() => pool.query("select pg_sleep(0.1)"));
    assert.equal(quick.ok, true);
  }));

test("a statement queued behind a stuck one on the same client fails with it, at once", () =>
  onBoundedPool(1, async ({ pool }) => {
    const client = await pool.connect();
    const stuck = timed(() => client.query("select pg_sleep(5)"));
    const behind = timed(() => client.query("select 1"));
    const [a, b] = await Promise.all([stuck, behind]);
    assert.equal(a.ok, false);
    assert.equal(b.ok, false);
    assert.ok(b.ms < LATEST_MS, `the queued statement failed after ${b.ms} ms`);
    client.release(true);
  }));

test("an exempt client (a migration's) is not bounded", () =>
  onBoundedPool(1, async ({ pool, exempt }) => {
    const client = await pool.connect();
    exempt.add(client);
    const long = await timed(() => client.query("select pg_sleep(1)"));
    assert.equal(long.ok, true, "an exempt statement longer than the bound completes");
    exempt.delete(client);
    client.release();
  }));

test("a checkout waiting on a full pool past the bound fails with pg-pool's message; the holder is unaffected", () =>
  onBoundedPool(1, async ({ pool }) => {
    const holder = await pool.connect();
    const waiting = await timed(() => pool.connect());
    assert.equal(waiting.ok, false);
    assert.match(String(!waiting.ok && waiting.error), /timeout exceeded when trying to connect/);
    assert.ok(!waiting.ok && isStorageUnavailable(waiting.error));
    assert.ok(waiting.ms >= BOUNDS.checkoutMs && waiting.ms < LATEST_MS, `failed after ${waiting.ms} ms`);
    assert.equal(pool.waitingCount, 0, "the timed-out checkout left the queue");
    assert.equal((await holder.query<{ n: number }>("select 3 as n")).rows[0]!.n, 3);
    holder.release();
    // Given back, the connection serves the next checkout at once.
    const next = await timed(() => pool.query("select 1"));
    assert.equal(next.ok, true);
    assert.ok(next.ms < BOUNDS.checkoutMs);
  }));

test("openDatabase's defaults: API requests' statements are bounded at 5 s on a pool of their own; the workers' at 15 s", async () => {
  assert.deepEqual(DEFAULT_DATABASE_BOUNDS, { statementTimeoutMs: 15_000, requestStatementTimeoutMs: 5_000, connectTimeoutMs: 5_000 });
  const database = await openDatabase({ url: TEST_DATABASE_URL, poolSize: 2 });
  try {
    // Both past the request bound, both inside the workers': the server's own statement_timeout
    // (57014, a 503) ends the request's; the worker's completes.
    const [request, worker] = await Promise.all([
      timed(() => database.requestDb.execute(sql`select pg_sleep(6)`)),
      timed(() => database.db.execute(sql`select pg_sleep(6)`)),
    ]);
    assert.equal(request.ok, false, "the request's statement was cut");
    const error = (request as { error: unknown }).error;
    assert.ok(isStorageUnavailable(error), `a 503, not a 500: ${String(error)}`);
    assert.ok(request.ms >= 5_000 && request.ms < 6_000, `cut after ${request.ms} ms, at the 5 s bound`);
    assert.equal(worker.ok, true, `the worker's statement completed: ${String(!worker.ok && worker.error)}`);
    // The request pool stays usable after the cancellation.
    assert.equal(((await database.requestDb.execute(sql`select 5 as n`)) as unknown as { rows: { n: number }[] }).rows[0]!.n, 5);
  } finally {
    await database.close();
  }
});
