import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import { openDatabase } from "../../../src/shared/db/database.js";
import { dropSchemas } from "../../../src/shared/db/pg-schemas.js";
import { TEST_DATABASE_URL } from "../../helpers/db.js";

// Instances of a new deployment start together on a schema nobody made yet: `create schema if not
// exists` run by two at once fails in one of them with a unique violation on pg_namespace (a
// proxy of the tenants bench exited at start in CI with it).
test("processes opening one fresh schema at once all start", async () => {
  for (let round = 0; round < 5; round++) {
    const schema = `fresh_${randomBytes(4).toString("hex")}`;
    try {
      const opened = await Promise.allSettled(
        Array.from({ length: 8 }, () => openDatabase({ url: TEST_DATABASE_URL, schema, poolSize: 1 })),
      );
      for (const o of opened) if (o.status === "fulfilled") await o.value.close();
      assert.deepEqual(
        opened.filter((o) => o.status === "rejected").map((o) => String((o as PromiseRejectedResult).reason)),
        [],
      );
    } finally {
      await dropSchemas(TEST_DATABASE_URL, schema);
    }
  }
});
