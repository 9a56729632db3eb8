import assert from "node:assert/strict";
import { test } from "node:test";
import { namedStatement } from "../../../src/shared/db/named-statement.js";
import { describeEachDatabase } from "../../helpers/db.js";

type Row = { id: string; at: Date; tags: string[]; missing: string | null; n: string };

const echo = namedStatement<Row>(
  "test_named_echo",
  "select $1::uuid as id, $2::timestamptz as at, array['a', $3] as tags, null::text as missing, ($4::int8 * 2)::text as n",
);

describeEachDatabase("named statements", (getDb) => {
  test("rows come back with the same values on both drivers, on every call", async () => {
    const id = crypto.randomUUID();
    for (let i = 0; i < 3; i++) {
      const rows = await echo(getDb().db, [id, "2026-11-25T10:00:00.123Z", `b${i}`, "21"]);
      assert.deepEqual(rows, [{ id, at: new Date("2026-11-25T10:00:00.123Z"), tags: ["a", `b${i}`], missing: null, n: "42" }]);
    }
  });

  test("a refused parameter throws the database's error and leaves the connection usable", async () => {
    await assert.rejects(
      echo(getDb().db, ["not-a-uuid", "2026-11-25T10:00:00Z", "b", "1"]),
      (err: { code?: string }) => err.code === "22P02",
    );
    const id = crypto.randomUUID();
    assert.equal((await echo(getDb().db, [id, "2026-11-25T10:00:00Z", "b", "1"]))[0]!.id, id);
    // A transaction started afterwards is not disturbed either.
    assert.deepEqual(await getDb().query("select 1 as one"), [{ one: 1 }]);
  });

  test("refused inside a transaction (it would wait for the transaction's own lock on PGlite)", async () => {
    await getDb().db.transaction(async (tx) => {
      await assert.rejects(echo(tx, [crypto.randomUUID(), "2026-11-25T10:00:00Z", "b", "1"]), /not in a transaction/);
    });
  });
});
