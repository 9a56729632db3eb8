import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { createServer, type Server, type Socket } from "node:net";
import { after, before, describe, test } from "node:test";
import { Redis } from "ioredis";
import type { Cache } from "../../../src/services/proxy/cache/cache.js";
import { MemoryCache } from "../../../src/services/proxy/cache/memory-cache.js";
import { RedisCache } from "../../../src/services/proxy/cache/redis-cache.js";
import { TOOLS_CACHE_TTL_SECONDS } from "../../../src/services/proxy/proxy-deps.js";
import { silentLogger } from "../../helpers/config.js";
import { freshDatabase, TEST_REDIS_URL } from "../../helpers/db.js";
import { freePort } from "../../helpers/ports.js";
import { startProxyHarness, upstreamCalls, type ProxyHarness } from "./proxy-harness.js";

/** One database for every suite of this file (which storage backs the proxy does not matter here). */
let shared: Promise<Awaited<ReturnType<typeof freshDatabase>>> | undefined;
const database = () => (shared ??= freshDatabase("postgres"));
after(async () => {
  if (shared) await (await shared).dispose();
});

/** A controllable clock for the in-process cache. */
const clock = { offset: 0, now: () => Date.now() + clock.offset };

type Flavour = {
  name: string;
  seed: number;
  make(): Cache;
  /** Seconds left on a key, as the store sees it. */
  ttlOf?(key: string): Promise<number>;
  /** Moves the cache's time forward (memory) or waits (Redis). */
  advance(seconds: number): Promise<void>;
  cleanup(): Promise<void>;
};

const prefix = `hb-test:${process.pid}:${randomBytes(4).toString("hex")}:`;
const admin = new Redis(TEST_REDIS_URL, { lazyConnect: true });

const FLAVOURS: Flavour[] = [
  {
    name: "in-process",
    seed: 101,
    make: () => new MemoryCache({ now: clock.now }),
    advance: async (seconds) => {
      clock.offset += seconds * 1000;
    },
    cleanup: async () => {},
  },
  {
    name: "Redis",
    seed: 102,
    make: () => new RedisCache({ url: TEST_REDIS_URL, keyPrefix: prefix, logger: silentLogger() }),
    ttlOf: (key) => admin.ttl(`${prefix}${key}`),
    advance: (seconds) => new Promise((r) => setTimeout(r, seconds * 1000 + 150)),
    cleanup: async () => {
      const keys = await admin.keys(`${prefix}*`);
      if (keys.length) await admin.del(...keys);
      admin.disconnect();
    },
  },
];

for (const flavour of FLAVOURS) {
  describe(`proxy cache (${flavour.name})`, () => {
    let h: ProxyHarness;
    let cache: Cache;
    let details: string;
    const detailsCalls = () => upstreamCalls(h.seen).filter((c) => c.url === `/v1/integrations/${h.integration}`).length;
    const toolsCalls = (category: string) => upstreamCalls(h.seen).filter((c) => c.url === `/v1/tools/${category}`).length;

    before(async () => {
      if (flavour.name === "Redis") await admin.connect();
      cache = flavour.make();
      // Its own seed: the suites share a database, and a sandbox's ids follow from its seed.
      h = await startProxyHarness(await database(), {
        cache,
        config: { INTEGRATION_CACHE_TTL_SECONDS: 1 },
        sandbox: { seed: flavour.seed },
      });
      details = `/api/v1/integrations/${h.integration}`;
    });
    after(async () => {
      await h?.close();
      await cache?.close();
      await flavour.cleanup();
    });

    test("tools are cached per category for 5 hours: one upstream call, then hits", async () => {
      h.seen.length = 0;
      const first = await h.call("GET", "/api/v1/general/tools/hris");
      assert.equal(first.statusCode, 200);
      assert.equal(first.headers["x-cache"], "MISS");
      for (let i = 0; i < 3; i++) {
        const again = await h.call("GET", "/api/v1/general/tools/hris");
        assert.equal(again.headers["x-cache"], "HIT");
        assert.equal(again.body, first.body);
        assert.match(String(again.headers["content-type"]), /^application\/json/);
      }
      assert.equal(toolsCalls("hris"), 1);
      assert.equal((await h.call("GET", "/api/v1/general/tools/assessment")).headers["x-cache"], "MISS", "per category");
      if (flavour.ttlOf) {
        const ttl = await flavour.ttlOf("tools:hris");
        assert.ok(ttl > TOOLS_CACHE_TTL_SECONDS - 60 && ttl <= TOOLS_CACHE_TTL_SECONDS, `ttl ${ttl}`);
      } else {
        await flavour.advance(TOOLS_CACHE_TTL_SECONDS - 60);
        assert.equal((await h.call("GET", "/api/v1/general/tools/hris")).headers["x-cache"], "HIT", "still fresh before 5 h");
        await flavour.advance(61);
        assert.equal((await h.call("GET", "/api/v1/general/tools/hris")).headers["x-cache"], "MISS", "expired after 5 h");
      }
    });

    test("concurrent misses of one key make one upstream call", async () => {
      await h.sandboxConfig({ latency_ms: 150 });
      try {
        h.seen.length = 0;
        const answers = await Promise.all(Array.from({ length: 8 }, () => h.call("GET", "/api/v1/general/tools/ats")));
        for (const a of answers) assert.equal(a.statusCode, 200);
        assert.equal(new Set(answers.map((a) => a.body)).size, 1);
        assert.equal(toolsCalls("ats"), 1);
      } finally {
        await h.sandboxConfig({ latency_ms: 0 });
      }
    });

    test("integration details: hit, expiry after the configured TTL, and bypass_cache refreshes the entry", async () => {
      h.seen.length = 0;
      const first = await h.call("GET", details);
      assert.equal(first.statusCode, 200, first.body);
      const second = await h.call("GET", details);
      assert.equal(second.headers["x-cache"], "HIT");
      assert.equal(second.body, first.body);
      const callsBefore = detailsCalls();

      // The upstream changes; the cache still serves the old copy until bypassed.
      const state = await fetch(`${h.sandbox.origin}/sandbox/integrations/${h.integration}/state`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ state: "INVALID" }),
      });
      assert.equal(state.status, 200);
      const stale = await h.call("GET", details);
      assert.equal(stale.headers["x-cache"], "HIT");
      assert.equal(stale.json().data.status, "ACTIVE");
      const fresh = await h.call("GET", `${details}?bypass_cache=true`);
      assert.equal(fresh.headers["x-cache"], "BYPASS");
      assert.equal(fresh.json().data.status, "INVALID");
      assert.equal(detailsCalls(), callsBefore + 1);
      const refreshed = await h.call("GET", details);
      assert.equal(refreshed.headers["x-cache"], "HIT");
      assert.equal(refreshed.json().data.status, "INVALID", "bypass refreshed the entry");
      assert.equal((await h.deps.integrations.find(h.sandbox.demoIntegrationId))?.status, "INVALID", "and the recorded state");

      await flavour.advance(1.2);
      const expired = await h.call("GET", details);
      assert.equal(expired.headers["x-cache"], "MISS");
      assert.equal(detailsCalls(), callsBefore + 2);
      await fetch(`${h.sandbox.origin}/sandbox/integrations/${h.integration}/state`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ state: "ACTIVE" }),
      });
    });

    test("relinking, a state change and a deletion evict the integration's entry", async () => {
      const warm = async () => {
        await h.call("GET", details);
        assert.equal((await h.call("GET", details)).headers["x-cache"], "HIT");
      };
      await warm();
      const relink = await h.call("POST", `${details}/relink`, { payload: {} });
      assert.equal(relink.statusCode, 200, relink.body);
      assert.equal((await h.call("GET", details)).headers["x-cache"], "MISS", "relink evicts");

      await warm();
      // What the integration-state-changed receiver does.
      await h.deps.integrations.setState(h.sandbox.demoIntegrationId, {
        status: "ACTIVE",
        setupStatus: "COMPLETED",
        qaStatus: "PASSED",
        at: new Date(),
      });
      assert.equal((await h.call("GET", details)).headers["x-cache"], "MISS", "a state change evicts");

      const createIntegration = async () => {
        const created = await fetch(`${h.sandbox.origin}/sandbox/integrations`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ org_id: h.demo.orgId, applications: 2 }),
        });
        const id = ((await created.json()) as { id: string }).id;
        const url = `/api/v1/integrations/${encodeURIComponent(id)}`;
        await h.call("GET", url);
        assert.equal((await h.call("GET", url)).headers["x-cache"], "HIT");
        return { id, url };
      };
      const deleted = await createIntegration();
      assert.equal((await h.call("DELETE", deleted.url)).statusCode, 200);
      assert.equal(await cache.get(`integration:${deleted.id}`), null, "deleting evicts");

      // What the integration-deleted receiver does.
      const gone = await createIntegration();
      await h.deps.integrations.markDeleted(gone.id);
      assert.equal(await cache.get(`integration:${gone.id}`), null);
      assert.equal((await h.call("GET", gone.url)).statusCode, 404);
    });
  });
}

describe("proxy cache on Redis: shared by instances, and an outage degrades to upstream calls", () => {
  let h: ProxyHarness;
  const caches: Cache[] = [];
  let blackhole: Server;
  const sockets = new Set<Socket>();
  const shared = `${prefix}shared:`;
  before(async () => {
    h = await startProxyHarness(await database(), { sandbox: { seed: 103 } });
    blackhole = createServer((socket) => {
      sockets.add(socket); // accepts, never answers: every command times out
    });
    await new Promise<void>((r) => blackhole.listen(0, "127.0.0.1", r));
  });
  after(async () => {
    for (const c of caches) await c.close();
    await h?.close();
    for (const s of sockets) s.destroy();
    await new Promise((r) => blackhole.close(r));
    const cleaner = new Redis(TEST_REDIS_URL);
    const keys = await cleaner.keys(`${shared}*`);
    if (keys.length) await cleaner.del(...keys);
    cleaner.disconnect();
  });
  const redis = (url: string, keyPrefix = shared) => {
    const c = new RedisCache({ url, keyPrefix, commandTimeoutMs: 200, logger: silentLogger() });
    caches.push(c);
    return c;
  };
  const get = (app: Awaited<ReturnType<ProxyHarness["extraApp"]>>, url: string) =>
    app.inject({ url, headers: { authorization: `Bearer ${h.demo.accessToken}` } });

  test("two proxy instances share entries and evictions", async () => {
    const a = await h.extraApp({}, redis(TEST_REDIS_URL));
    const b = await h.extraApp({}, redis(TEST_REDIS_URL));
    const url = `/api/v1/integrations/${h.integration}`;
    assert.equal((await get(a, url)).statusCode, 200);
    assert.equal((await get(b, url)).headers["x-cache"], "HIT", "filled by the other instance");
    await a.proxy!.integrations.evict(h.sandbox.demoIntegrationId);
    assert.equal((await get(b, url)).headers["x-cache"], "MISS", "evicted by the other instance");
  });

  for (const [what, url] of [
    ["refuses connections", async () => `redis://127.0.0.1:${await freePort()}`],
    ["accepts but never answers", async () => `redis://127.0.0.1:${(blackhole.address() as { port: number }).port}`],
  ] as const) {
    test(`a Redis that ${what} costs upstream calls, not errors`, async () => {
      const app = await h.extraApp({}, redis(await url()));
      h.seen.length = 0;
      for (let i = 0; i < 3; i++) {
        const started = Date.now();
        const res = await get(app, "/api/v1/general/tools/ats");
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.headers["x-cache"], "MISS");
        assert.ok(Date.now() - started < 3000, "no hang on the cache");
      }
      assert.equal(upstreamCalls(h.seen).filter((c) => c.url === "/v1/tools/ats").length, 3);
    });
  }
});
