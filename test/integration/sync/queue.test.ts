import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { sql } from "drizzle-orm";
import { openJobQueue, QUEUES, type JobQueue } from "../../../src/shared/jobs/queue.js";
import { silentLogger } from "../../helpers/config.js";
import { describeEachDatabase } from "../../helpers/db.js";

describeEachDatabase("job queue", (getDb) => {
  let queue: JobQueue;
  before(async () => {
    queue = await openJobQueue(getDb(), silentLogger(), { pollingIntervalSeconds: 0.5 });
  });
  after(async () => {
    await queue.stop();
  });

  test("a job sent inside a transaction exists only if the transaction commits", async () => {
    const db = getDb().db;
    await assert.rejects(
      db.transaction(async (tx) => {
        await queue.send(QUEUES.writeBack, { n: 1 }, { tx, singletonKey: "rolled-back" });
        await tx.execute(sql`select 1`);
        throw new Error("abort");
      }),
    );
    let committedId: string | null = null;
    await db.transaction(async (tx) => {
      committedId = await queue.send(QUEUES.writeBack, { n: 2 }, { tx, singletonKey: "committed" });
    });
    assert.ok(committedId);
    const jobs = await queue.boss.findJobs(QUEUES.writeBack, {});
    const keys = jobs.map((j) => j.singletonKey);
    assert.ok(keys.includes("committed"));
    assert.ok(!keys.includes("rolled-back"));
  });

  test("sync triggers for one key coalesce: one queued at a time", async () => {
    const ids = await Promise.all([1, 2, 3].map((i) => queue.send(QUEUES.sync, { i }, { singletonKey: "int-a:jobs" })));
    assert.equal(ids.filter(Boolean).length, 1);
    const other = await queue.send(QUEUES.sync, { i: 4 }, { singletonKey: "int-b:jobs" });
    assert.ok(other, "another key is independent");
  });
});
