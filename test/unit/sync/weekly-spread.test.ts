import assert from "node:assert/strict";
import { test } from "node:test";
import { PRIORITY, QUEUES, type SendOptions } from "../../../src/shared/jobs/queue.js";
import { planWeeklySyncs, weeklyOffsetSeconds } from "../../../src/services/sync/weekly-spread.js";

const WEEK = 604_800;

/** A queue that keeps what it is sent and, like pg-boss, drops a job whose id it holds. */
function recordingQueue() {
  const sent = new Map<string, { name: string; data: object; opts: SendOptions }>();
  return {
    sent,
    send: async (name: string, data: object, opts: SendOptions = {}) => {
      if (!opts.id) throw new Error("weekly jobs carry a stable id");
      if (sent.has(opts.id)) return null;
      sent.set(opts.id, { name, data, opts });
      return opts.id;
    },
  };
}

test("an integration's offset into the week is stable, below the spread, and 0 without one", () => {
  assert.equal(weeklyOffsetSeconds("int-1", WEEK), weeklyOffsetSeconds("int-1", WEEK));
  for (let i = 0; i < 200; i++) {
    const offset = weeklyOffsetSeconds(`int-${i}`, WEEK);
    assert.ok(Number.isInteger(offset) && offset >= 0 && offset < WEEK, String(offset));
  }
  assert.equal(weeklyOffsetSeconds("int-1", 0), 0);
});

test("a thousand integrations spread over the week: no day holds more than twice its share", () => {
  const perDay = new Array<number>(7).fill(0);
  for (let i = 0; i < 1000; i++) perDay[Math.floor(weeklyOffsetSeconds(`integration-${i}`, WEEK) / 86_400)]!++;
  assert.ok(Math.max(...perDay) < (2 * 1000) / 7, JSON.stringify(perDay));
  assert.ok(Math.min(...perDay) > 1000 / 7 / 2, JSON.stringify(perDay));
});

test("the plan queues one background job per integration at its offset, under its organisation; planned again, none twice", async () => {
  const queue = recordingQueue();
  const rows = [
    { id: "int-a", orgId: "org-1" },
    { id: "int-b", orgId: "org-2" },
  ];
  const at = new Date("2026-11-29T03:00:00Z");
  assert.equal(await planWeeklySyncs(queue, rows, WEEK, "cron-job-1", at), 2);
  for (const r of rows) {
    const job = [...queue.sent.values()].find((j) => (j.data as { integrationId: string }).integrationId === r.id);
    assert.ok(job);
    assert.equal(job.name, QUEUES.weeklySync);
    assert.deepEqual(job.data, { integrationId: r.id, orgId: r.orgId });
    assert.equal(job.opts.orgId, r.orgId);
    assert.equal(job.opts.priority, PRIORITY.background);
    assert.equal((job.opts.startAfter as Date).getTime(), at.getTime() + weeklyOffsetSeconds(r.id, WEEK) * 1000);
  }
  // The planning job retried after a crash (same job id): nothing queued twice.
  assert.equal(await planWeeklySyncs(queue, [...rows, { id: "int-c", orgId: "org-1" }], WEEK, "cron-job-1", at), 1);
  assert.equal(queue.sent.size, 3);
  // Next week's plan (another cron job) queues them all again.
  assert.equal(await planWeeklySyncs(queue, rows, WEEK, "cron-job-2", new Date(at.getTime() + WEEK * 1000)), 2);
});
