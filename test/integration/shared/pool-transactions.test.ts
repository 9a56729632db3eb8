import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { sql } from "drizzle-orm";
import type pg from "pg";
import { openDatabase } from "../../../src/shared/db/database.js";
import { dropSchemas } from "../../../src/shared/db/pg-schemas.js";
import { TEST_DATABASE_URL } from "../../helpers/db.js";

const within = <T>(ms: number, what: string, p: Promise<T>): Promise<T> =>
  Promise.race([p, sleep(ms).then(() => Promise.reject(new Error(`${what}: still waiting after ${ms} ms`)))]);

/**
 * A transaction whose BEGIN fails because its connection dropped (as when Postgres restarts) must
 * give its client back: drizzle-orm's own pool transaction did not, so each such failure took a
 * connection out of the pool for good and closing the pool waited forever. The fault is the
 * dropped connection itself: the socket of the client just checked out is destroyed before BEGIN.
 */
test("a transaction whose connection dropped before BEGIN gives its client back (Postgres pool)", async () => {
  const schema = `t_${process.pid}_${randomBytes(4).toString("hex")}`;
  const database = await openDatabase({ url: TEST_DATABASE_URL, schema, poolSize: 1 });
  try {
    const pool = database.pool!;
    pool.once("acquire", (client: pg.PoolClient) => {
      (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
    });
    await assert.rejects(database.db.transaction(async (tx) => tx.execute(sql`select 1`)));
    // One connection in the pool: with the client kept, this would wait for it until the pool's
    // connection timeout (10 s).
    const rows = await within(
      5_000,
      "next transaction",
      database.db.transaction(async (tx) => tx.execute(sql`select 2 as n`)),
    );
    assert.equal((rows as unknown as { rows: { n: number }[] }).rows[0]!.n, 2);
    assert.equal(pool.totalCount, 1);
  } finally {
    await within(5_000, "closing the pool", database.close());
    await dropSchemas(TEST_DATABASE_URL, schema);
  }
});
