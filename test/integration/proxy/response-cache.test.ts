import assert from "node:assert/strict";
import { test } from "node:test";
import { MemoryCache } from "../../../src/services/proxy/cache/memory-cache.js";
import { ResponseCache, type LoadedResponse } from "../../../src/services/proxy/cache/response-cache.js";

const ok = (body: string): LoadedResponse => ({ status: 200, headers: { "content-type": "application/json" }, body });

function deferred() {
  let resolve!: (v: LoadedResponse) => void;
  const promise = new Promise<LoadedResponse>((r) => (resolve = r));
  return { promise, resolve };
}

test("concurrent misses share one load; only 200s are stored", async () => {
  const cache = new ResponseCache(new MemoryCache());
  const d = deferred();
  let loads = 0;
  const load = () => {
    loads++;
    return d.promise;
  };
  const both = Promise.all([cache.fetch("k", 60, load), cache.fetch("k", 60, load)]);
  d.resolve(ok('{"v":1}'));
  const [a, b] = await both;
  assert.equal(loads, 1);
  assert.deepEqual([a.cache, b.cache, a.body, b.body], ["MISS", "MISS", '{"v":1}', '{"v":1}']);
  assert.equal((await cache.fetch("k", 60, load)).cache, "HIT");

  const failed = await cache.fetch("e", 60, async () => ({ status: 404, headers: {}, body: "{}" }));
  assert.equal(failed.status, 404);
  assert.equal(await cache.store.get("e"), null);
});

test("an eviction during a load wins: the answer reaches its callers but is not stored", async () => {
  const cache = new ResponseCache(new MemoryCache());
  const d = deferred();
  const pending = cache.fetch("k", 60, () => d.promise);
  await new Promise(setImmediate); // the load is under way
  await cache.evict(["k"]);
  d.resolve(ok('{"old":true}'));
  assert.equal((await pending).body, '{"old":true}');
  assert.equal(await cache.store.get("k"), null);
});

test("a bypass load supersedes an older load still under way", async () => {
  const cache = new ResponseCache(new MemoryCache());
  const older = deferred();
  const slow = cache.fetch("k", 60, () => older.promise);
  await new Promise(setImmediate);
  const fresh = await cache.fetch("k", 60, async () => ok('{"fresh":true}'), { bypass: true });
  assert.equal(fresh.cache, "BYPASS");
  older.resolve(ok('{"stale":true}'));
  await slow;
  assert.equal(await cache.store.get("k"), '{"fresh":true}');
});
