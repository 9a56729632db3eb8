import assert from "node:assert/strict";
import { test } from "node:test";
import { migrate } from "../../../src/shared/db/migrate.js";
import { describeEachDatabase } from "../../helpers/db.js";

describeEachDatabase("migrations", (get) => {
  test("are recorded and applied once; concurrent runs do not race", async () => {
    const db = get();
    const again = await Promise.all([migrate(db), migrate(db)]);
    assert.deepEqual(again, [[], []]);
    const rows = await db.query<{ version: string }>("select version from hirebridge_migrations order by version");
    assert.ok(rows.length >= 1);
  });
});
