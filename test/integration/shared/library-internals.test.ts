/**
 * The library internals the adapters of issue 39 rely on (test/unit/structure/library-internals.test.ts
 * lists them), checked against the installed pg, pg-pool and PGlite: an upgrade that renames or
 * reshapes one fails here, by name, instead of silently disabling a bound or a fast path.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { TEST_DATABASE_URL } from "../../helpers/db.js";

type PoolInternals = { _clients: unknown[]; _pendingQueue: unknown[] };
type ClientInternals = { _getActiveQuery(): unknown; connection: { stream: { destroy: unknown } } };

test("pg-pool keeps its clients in _clients and waiting checkouts in _pendingQueue; pg's client exposes its active query and socket", async () => {
  const pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 1 });
  try {
    const internals = pool as unknown as PoolInternals;
    const client = await pool.connect();
    assert.ok(Array.isArray(internals._clients), "pg-pool: _clients is an array");
    assert.ok(internals._clients.includes(client), "pg-pool: _clients holds the checked-out client");
    const c = client as unknown as ClientInternals;
    assert.equal(typeof c._getActiveQuery, "function", "pg: Client#_getActiveQuery");
    assert.equal(c._getActiveQuery() ?? null, null, "pg: no active query while idle");
    assert.equal(typeof c.connection.stream.destroy, "function", "pg: Client#connection.stream is the socket");
    const sleeping = client.query("select pg_sleep(0.2)");
    assert.equal(typeof c._getActiveQuery(), "object", "pg: the statement in flight is the active query");
    assert.ok(Array.isArray(internals._pendingQueue), "pg-pool: _pendingQueue is an array");
    const waiting = pool.connect();
    assert.equal(internals._pendingQueue.length, 1, "pg-pool: a checkout of a full pool waits in _pendingQueue");
    await sleeping;
    client.release();
    (await waiting).release();
  } finally {
    await pool.end();
  }
});

test("PGlite still has the locks and the protocol entry point named statements use", async () => {
  const db = new PGlite();
  try {
    await db.waitReady;
    const internals = db as unknown as Record<string, unknown>;
    for (const name of ["_checkReady", "_runExclusiveTransaction", "_runExclusiveQuery", "execProtocol", "syncToFs", "isInTransaction"])
      assert.equal(typeof internals[name], "function", `PGlite#${name}`);
    assert.equal(typeof db.parsers, "object", "PGlite#parsers");
  } finally {
    await db.close();
  }
});
