import assert from "node:assert/strict";
import { test } from "node:test";
import { uuidv7s } from "../../../src/shared/db/uuid7.js";

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** The id's millisecond: its first 48 bits. */
const ms = (id: string) => Number.parseInt(id.replace(/-/g, "").slice(0, 12), 16);

test("uuidv7s: RFC 9562 version 7 ids, the millisecond first, distinct, ordered across milliseconds", () => {
  const at = Date.parse("2026-11-25T16:00:00.000Z");
  const ids = uuidv7s(1000, at);
  for (const id of ids) {
    assert.match(id, V7);
    assert.equal(ms(id), at);
  }
  assert.equal(new Set(ids).size, ids.length);
  const [later] = uuidv7s(1, at + 1);
  assert.ok(
    ids.every((id) => id < later!),
    "an id of a later millisecond sorts after every earlier one",
  );
});

test("uuidv7s: ids of one process never go back, within a millisecond, past its counter, and before the last one", () => {
  const at = Date.parse("2026-11-26T16:00:00.000Z");
  // Separate calls in one millisecond (sequential creates), then more than the counter holds.
  const ids = [...uuidv7s(3, at), ...uuidv7s(2, at), ...uuidv7s(5000, at), ...uuidv7s(2, at - 5)];
  for (let i = 1; i < ids.length; i++) assert.ok(ids[i - 1]! < ids[i]!, `id ${i} sorts after id ${i - 1}`);
  assert.equal(new Set(ids).size, ids.length);
  for (const id of ids) assert.match(id, V7);
  assert.equal(ms(ids[0]!), at);
  // 5,005 ids in one millisecond: the first holds at least 2,049 (the counter starts below 2,048),
  // the rest fit in one borrowed millisecond, which the two ids of a clock behind it take too.
  assert.equal(ms(ids.at(-1)!), at + 1);
});
