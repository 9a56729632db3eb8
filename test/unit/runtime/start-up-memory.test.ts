import assert from "node:assert/strict";
import { test } from "node:test";
import { runInNewContext } from "node:vm";
import { releaseStartUpMemory } from "../../../src/runtime/start-up-memory.js";

test("the start-up collection gives emptied heap pages back, and leaves no gc function exposed", () => {
  const hadGlobalGc = "gc" in globalThis;
  // Garbage the size of one of drizzle's package.json waves (~60 MB) that dies all at once.
  let garbage: number[][] | undefined = Array.from({ length: 80 }, (_, i) => new Array<number>(100_000).fill(i + 0.5));
  assert.equal(garbage.length, 80);
  const before = process.memoryUsage().heapTotal;
  garbage = undefined;
  releaseStartUpMemory();
  const after = process.memoryUsage().heapTotal;
  assert.ok(after < before - 40 * 1024 * 1024, `heap reserved ${before >> 20} MB -> ${after >> 20} MB`);
  assert.equal("gc" in globalThis, hadGlobalGc, "no gc global appears in this context");
  assert.equal(runInNewContext("typeof gc"), "undefined", "new contexts do not get gc either");
});
