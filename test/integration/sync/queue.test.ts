import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
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

  test("jobs queued by a caller's own statement exist with its rows and only for them, on queues with and without NOTIFY", async () => {
    const database = getDb();
    await database.query("create table if not exists queue_test_rows (id text primary key)");
    await database.query("insert into queue_test_rows values ('taken') on conflict do nothing");
    for (const name of [QUEUES.webhookEvents, QUEUES.weeklySync]) {
      const text = await queue.insertJobsWith(
        name,
        `input as (select value as id from jsonb_array_elements_text($1::jsonb)),
         added as (insert into queue_test_rows select id from input on conflict do nothing returning id)`,
        `select coalesce(json_agg(json_build_object('data', json_build_object('row', id))), '[]'::json) from added`,
      );
      const tag = randomUUID();
      const rows = await database.query<{ id: string }>(text, [JSON.stringify([`${tag}-a`, "taken", `${tag}-b`])]);
      const jobs = (await queue.boss.findJobs<{ row?: string }>(name, {})).filter(
        (j) => j.data.row?.startsWith(tag) || j.data.row === "taken",
      );
      assert.deepEqual(
        jobs.map((j) => j.data.row).sort(),
        [`${tag}-a`, `${tag}-b`],
        `${name}: a job for each row inserted, none for the one there before`,
      );
      assert.deepEqual(rows.map((r) => r.id).sort(), jobs.map((j) => j.id).sort(), `${name}: the statement answers the jobs' ids`);
      assert.equal(jobs[0]!.retryLimit, name === QUEUES.webhookEvents ? 8 : 2, `${name}: the queue's own policy applies`);
    }
  });
});
