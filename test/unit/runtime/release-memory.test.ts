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

test("after a burst of requests, memory is released once idle: not while a request is in flight, once per burst", async () => {
  // The collection's effect is the test above; this one is about when it runs (V8 may also shrink
  // the heap by itself, so heap sizes could not tell).
  let releases = 0;
  let hold: (() => void) | undefined;
  const server = createServer((req, res) => {
    if (req.url === "/held") hold = () => res.end("held");
    else res.end("ok");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const get = (path: string) => fetch(`http://127.0.0.1:${port}${path}`).then((r) => r.text());
  const stop = releaseMemoryWhenIdle([server], { idleMs: 200, minGrowthBytes: 0, release: () => releases++ });
  // Polls for what must happen (timers on a loaded CI machine run late), up to 10 s.
  const until = async (done: () => boolean) => {
    for (let i = 0; i < 200 && !done(); i++) await sleep(50);
  };
  try {
    await sleep(500);
    assert.equal(releases, 0, "nothing to give back before any request");
    assert.equal(await get("/burst"), "ok");
    const held = get("/held");
    await until(() => hold !== undefined);
    await sleep(700);
    assert.equal(releases, 0, "not while a request is in flight");
    hold!();
    assert.equal(await held, "held");
    await until(() => releases > 0);
    assert.equal(releases, 1, "once the last request is done and the process idle");
    await sleep(500);
    assert.equal(releases, 1, "once per burst");
    assert.equal(await get("/again"), "ok");
    await until(() => releases > 1);
    assert.equal(releases, 2, "again after the next burst");
  } finally {
    hold?.();
    stop();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

test("a burst that left the old generation about where it was is not released: the young generation keeps its size", async () => {
  let releases = 0;
  let heap = 100 << 20; // what the old generation holds, as the watcher reads it
  const server = createServer((_req, res) => res.end("ok"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const get = (path: string) => fetch(`http://127.0.0.1:${port}${path}`).then((r) => r.text());
  const stop = releaseMemoryWhenIdle([server], {
    idleMs: 200,
    minGrowthBytes: 32 << 20,
    heapBytes: () => heap,
    release: () => {
      releases++;
      heap = 110 << 20; // what a release leaves: more than at start, less than before it
    },
  });
  try {
    heap += 8 << 20;
    assert.equal(await get("/ordinary"), "ok");
    await sleep(800);
    assert.equal(releases, 0, "8 MB more: ordinary traffic, nothing released");
    heap += 30 << 20; // 38 MB over the start, over two bursts
    assert.equal(await get("/scan"), "ok");
    for (let i = 0; i < 200 && releases === 0; i++) await sleep(50);
    assert.equal(releases, 1, "38 MB more than after the last release: released once idle");
    heap += 20 << 20; // 20 MB over what the release left
    assert.equal(await get("/again"), "ok");
    await sleep(800);
    assert.equal(releases, 1, "growth is counted from what the last release left");
  } finally {
    stop();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
