import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { openDatabase } from "../../../src/shared/db/database.js";
import { initdbOutOfProcess, needsInitdb } from "../../../src/shared/db/pglite-initdb.js";

const root = mkdtempSync(join(tmpdir(), "hirebridge-initdb-"));
after(() => rmSync(root, { recursive: true, force: true }));

test("a first open on disk creates the cluster in a child process; the next open finds it", async () => {
  const dir = join(root, "first", "pglite");
  assert.equal(needsInitdb(dir), true);
  const db = await openDatabase({ dataDir: dir });
  try {
    // initdb ran elsewhere: this process opened an existing cluster, and nothing was left beside it.
    assert.equal(needsInitdb(dir), false);
    assert.deepEqual(readdirSync(join(root, "first")), ["pglite"]);
    await db.query("create table kept (v int)");
    await db.query("insert into kept values (42)");
  } finally {
    await db.close();
  }
  const again = await openDatabase({ dataDir: dir });
  try {
    assert.deepEqual(await again.query("select v from kept"), [{ v: 42 }]);
  } finally {
    await again.close();
  }
});

test("an empty directory counts as new; a failed initdb says why and leaves nothing behind", async () => {
  const dir = join(root, "failing", "pglite");
  mkdirSync(dir, { recursive: true });
  assert.equal(needsInitdb(dir), true);
  await assert.rejects(initdbOutOfProcess(dir, ["-c", "shared_buffers=not-a-size"]), (err: Error) =>
    err.message.startsWith(`creating the embedded database in ${dir} failed`),
  );
  assert.deepEqual(readdirSync(join(root, "failing")), ["pglite"]);
  assert.deepEqual(readdirSync(dir), []);
  assert.equal(existsSync(join(dir, "PG_VERSION")), false);
});
