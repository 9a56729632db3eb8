import assert from "node:assert/strict";
import { test } from "node:test";
import { concatAhead, readAhead } from "../../../src/services/sync/upstream-pages.js";

/** A source that records how many items were requested and whether it was closed. */
function source(count: number, failAt?: number) {
  const seen = { started: 0, closed: false };
  async function* gen(): AsyncGenerator<number> {
    try {
      for (let i = 0; i < count; i++) {
        seen.started = i + 1;
        await new Promise((r) => setImmediate(r));
        if (i === failAt) throw new Error(`read ${i} failed`);
        yield i;
      }
    } finally {
      seen.closed = true;
    }
  }
  return { gen: gen(), seen };
}

test("readAhead yields every item in order and reads at most `depth` ahead of the consumer", async () => {
  const { gen, seen } = source(10);
  const got: number[] = [];
  for await (const batch of readAhead(gen, 3)) {
    // Let the reads in flight run: however long the consumer takes, the source stays `depth` ahead.
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    const item = batch[batch.length - 1]!;
    assert.ok(seen.started <= item + 1 + 3, `item ${item}: ${seen.started} started`);
    got.push(...batch);
  }
  assert.deepEqual(got, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  assert.equal(seen.closed, true);
});

test("readAhead closes the source when the consumer stops early, after the reads in flight settle", async () => {
  const { gen, seen } = source(100);
  for await (const batch of readAhead(gen, 3)) if (batch.includes(4)) break;
  assert.equal(seen.closed, true);
  assert.ok(seen.started <= 9, `${seen.started} reads started for 5 consumed`);
});

test("readAhead hands a failed read to the consumer in its turn, after the items before it", async () => {
  const { gen, seen } = source(10, 5);
  const got: number[] = [];
  await assert.rejects(async () => {
    for await (const batch of readAhead(gen, 3)) got.push(...batch);
  }, /read 5 failed/);
  assert.deepEqual(got, [0, 1, 2, 3, 4]);
  assert.equal(seen.closed, true);
});

test("readAhead hands over together the items fetched while the consumer was busy, one at least", async () => {
  const { gen } = source(10);
  const batches: number[][] = [];
  for await (const batch of readAhead(gen, 3)) {
    batches.push(batch);
    // A slow consumer (a write): the next reads all complete meanwhile.
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
  }
  assert.deepEqual(batches.flat(), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  assert.deepEqual(batches[0], [0], "the first item is handed over as soon as it is read");
  assert.ok(
    batches.slice(1).every((b) => b.length > 1 || b[0] === 9),
    JSON.stringify(batches),
  );
  assert.ok(
    batches.every((b) => b.length <= 3),
    "never more than `depth` at once",
  );
});

/** Sources of sources: `lengths[k]` items for source k, each item `k * 100 + i`; source `failAt` fails at its second item. */
function sources(lengths: number[], failAt?: number) {
  const seen = { started: [] as number[], closed: [] as number[], outerClosed: false };
  async function* one(k: number, n: number): AsyncGenerator<number> {
    try {
      for (let i = 0; i < n; i++) {
        seen.started.push(k * 100 + i);
        await new Promise((r) => setImmediate(r));
        if (k === failAt && i === 1) throw new Error(`source ${k} failed`);
        yield k * 100 + i;
      }
    } finally {
      seen.closed.push(k);
    }
  }
  async function* all(): AsyncGenerator<AsyncGenerator<number>> {
    try {
      for (let k = 0; k < lengths.length; k++) yield one(k, lengths[k]!);
    } finally {
      seen.outerClosed = true;
    }
  }
  return { gen: all(), seen };
}

test("concatAhead yields every source's items in order, the next source already read while the current one is consumed", async () => {
  const { gen, seen } = sources([3, 0, 4, 2]);
  const got: number[] = [];
  let aheadSeen = false;
  for await (const item of concatAhead(gen, 2)) {
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    // While source 0 is consumed, source 2 (after the empty source 1) has not started; source 1 has (and ended).
    if (item === 0) aheadSeen = seen.closed.includes(1) || seen.started.some((s) => s >= 200);
    got.push(item);
    const k = Math.floor(item / 100);
    // Never more than `depth` items of the next source, and nothing of the one after it.
    const next = seen.started.filter((s) => Math.floor(s / 100) === k + 1).length;
    assert.ok(next <= 2, `${next} items of source ${k + 1} read while consuming ${item}`);
    assert.ok(!seen.started.some((s) => Math.floor(s / 100) > k + 2), `consuming ${item}: ${seen.started}`);
  }
  assert.deepEqual(got, [0, 1, 2, 200, 201, 202, 203, 300, 301]);
  assert.ok(aheadSeen, "the next source was started before the current one ended");
  assert.deepEqual(seen.closed.sort(), [0, 1, 2, 3]);
  assert.equal(seen.outerClosed, true);
});

test("concatAhead throws a failure of the next source in its turn, after the current source's items, and closes everything", async () => {
  const { gen, seen } = sources([3, 3, 3], 1);
  const got: number[] = [];
  await assert.rejects(async () => {
    for await (const item of concatAhead(gen, 2)) got.push(item);
  }, /source 1 failed/);
  assert.deepEqual(got, [0, 1, 2, 100]);
  assert.deepEqual(seen.closed.sort(), [0, 1, 2]);
  assert.equal(seen.outerClosed, true);
});

test("concatAhead closes the sources in flight when the consumer stops early", async () => {
  const { gen, seen } = sources([5, 5, 5]);
  for await (const item of concatAhead(gen, 2)) if (item === 1) break;
  assert.deepEqual(seen.closed.sort(), [0, 1]);
  assert.equal(seen.outerClosed, true);
});
