import assert from "node:assert/strict";
import { test } from "node:test";
import { readAhead } from "../../../src/services/sync/upstream-pages.js";

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
