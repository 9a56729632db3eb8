/** The sandbox-wide budget for assessment attachment bytes: bounded, oldest dropped first, metadata kept. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { AttachmentBudget, type OrderAttachment } from "../../../src/services/sandbox/store/assessments.js";

const file = (name: string, bytes: number): OrderAttachment => ({
  name,
  contentType: "application/pdf",
  size: bytes,
  source: "data",
  dataUrl: null,
  content: Buffer.alloc(bytes, 1),
  problem: null,
});

test("bytes beyond the limit push out the oldest held attachments, whose names and sizes stay", () => {
  const budget = new AttachmentBudget(100);
  const [a, b, c] = [file("a", 40), file("b", 40), file("c", 40)];
  budget.hold(a);
  budget.hold(b);
  assert.equal(budget.bytes, 80);
  budget.hold(c);
  assert.equal(budget.bytes, 80);
  assert.deepEqual(
    [a, b, c].map((f) => [f.name, f.size, f.content?.length ?? null]),
    [
      ["a", 40, null],
      ["b", 40, 40],
      ["c", 40, 40],
    ],
  );
  assert.match(a.problem!, /dropped/);
});

test("an attachment larger than the whole budget is not held; released ones free their bytes", () => {
  const budget = new AttachmentBudget(100);
  const big = file("big", 101);
  budget.hold(big);
  assert.equal(big.content, null);
  assert.equal(big.size, 101);
  assert.equal(budget.bytes, 0);
  const kept = file("kept", 60);
  budget.hold(kept);
  budget.release([kept]);
  assert.equal(budget.bytes, 0);
  assert.equal(kept.content?.length, 60, "released bytes are the caller's to drop");
  budget.hold(file("next", 100));
  assert.equal(budget.bytes, 100);
});
