import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { test } from "node:test";
import { runInNewContext } from "node:vm";
import { releaseMemoryWhenIdle, releaseUnusedMemory } from "../../../src/runtime/release-memory.js";

test("the start-up collection gives emptied heap pages back, and leaves no gc function exposed", () => {
  const hadGlobalGc = "gc" in globalThis;
  // Garbage the size of one of drizzle's package.json waves (~60 MB) that dies all at once.
  let garbage: number[][] | undefined = Array.from({ length: 80 }, (_, i) => new Array<number>(100_000).fill(i + 0.5));
  assert.equal(garbage.length, 80);
  const before = process.memoryUsage().heapTotal;
  garbage = undefined;
  releaseUnusedMemory();
  const after = process.memoryUsage().heapTotal;
  assert.ok(after < before - 40 * 1024 * 1024, `heap reserved ${before >> 20} MB -> ${after >> 20} MB`);
  assert.equal("gc" in globalThis, hadGlobalGc, "no gc global appears in this context");
  assert.equal(runInNewContext("typeof gc"), "undefined", "new contexts do not get gc either");
});

test("after a burst of requests, once idle, the emptied heap is given back; not while a request is in flight", async () => {
  let garbage: number[][] | undefined;
  let hold: (() => void) | undefined;
  const server = createServer((req, res) => {
    if (req.url === "/burst") {
      // What a burst leaves: ~60 MB that dies once answered.
      garbage = Array.from({ length: 80 }, (_, i) => new Array<number>(100_000).fill(i + 0.5));
      res.end(String(garbage.length));
      garbage = undefined;
    } else hold = () => res.end("held");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const stop = releaseMemoryWhenIdle([server], 200);
  try {
    assert.equal(await (await fetch(`http://127.0.0.1:${port}/burst`)).text(), "80");
    const held = fetch(`http://127.0.0.1:${port}/held`).then((r) => r.text());
    const grown = process.memoryUsage().heapTotal;
    await sleep(600);
    assert.ok(process.memoryUsage().heapTotal > grown - 40 * 1024 * 1024, "nothing given back while a request is in flight");
    hold!();
    assert.equal(await held, "held");
    await sleep(600);
    const after = process.memoryUsage().heapTotal;
    assert.ok(after < grown - 40 * 1024 * 1024, `heap reserved ${grown >> 20} MB -> ${after >> 20} MB once idle`);
  } finally {
    stop();
    await new Promise((resolve) => server.close(resolve));
  }
});
