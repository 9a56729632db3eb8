import assert from "node:assert/strict";
import { test } from "node:test";
import { uuidv7s } from "../../../src/shared/db/uuid7.js";

test("uuidv7s: RFC 9562 version 7 ids, the millisecond first, distinct, ordered across milliseconds", () => {
  const at = Date.parse("2026-11-25T16:00:00.000Z");
  const ids = uuidv7s(1000, at);
  for (const id of ids) {
    assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(Number.parseInt(id.replace(/-/g, "").slice(0, 12), 16), at);
  }
  assert.equal(new Set(ids).size, ids.length);
  const [later] = uuidv7s(1, at + 1);
  assert.ok(
    ids.every((id) => id < later!),
    "an id of a later millisecond sorts after every earlier one",
  );
});
