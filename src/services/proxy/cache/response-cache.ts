import type { Cache } from "./cache.js";
import { cacheRequests } from "../../../shared/http/metrics.js";

/** A small upstream answer, as cached and as served. Only 200s are stored. */
export type CachedResponse = {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** HIT: from the cache; MISS: loaded (and stored when 200); BYPASS: loaded on request, stored. */
  cache: "HIT" | "MISS" | "BYPASS";
};
export type LoadedResponse = Omit<CachedResponse, "cache">;

const JSON_HEADERS = { "content-type": "application/json; charset=utf-8" };

/**
 * Read-through caching of upstream answers with single-flight loading: concurrent misses of one key
 * in this process share one upstream call. An eviction during a load wins over the load: the
 * answer still reaches the callers waiting for it but is not stored, so a state change announced
 * while an older copy was on its way is not overwritten by that copy.
 */
export class ResponseCache {
  readonly #inflight = new Map<string, Promise<LoadedResponse>>();
  /** Loads running per key, and the logical time of the last eviction of keys with running loads. */
  readonly #active = new Map<string, number>();
  readonly #evictedAt = new Map<string, number>();
  #clock = 0;

  constructor(readonly store: Cache) {}

  async fetch(
    key: string,
    ttlSeconds: number,
    load: () => Promise<LoadedResponse>,
    opts: { bypass?: boolean } = {},
  ): Promise<CachedResponse> {
    if (ttlSeconds <= 0) return { ...(await load()), cache: "MISS" };
    if (opts.bypass) {
      // A fresh load supersedes loads already under way: their older answers must not be stored after it.
      this.#supersede(key);
      cacheRequests.inc({ result: "bypass" });
      return { ...(await this.#load(key, ttlSeconds, load)), cache: "BYPASS" };
    }
    const cached = await this.store.get(key);
    cacheRequests.inc({ result: cached !== null ? "hit" : "miss" });
    if (cached !== null) return { status: 200, headers: { ...JSON_HEADERS }, body: cached, cache: "HIT" };
    let pending = this.#inflight.get(key);
    if (!pending) {
      pending = this.#load(key, ttlSeconds, load).finally(() => {
        if (this.#inflight.get(key) === pending) this.#inflight.delete(key);
      });
      this.#inflight.set(key, pending);
    }
    return { ...(await pending), cache: "MISS" };
  }

  async #load(key: string, ttlSeconds: number, load: () => Promise<LoadedResponse>): Promise<LoadedResponse> {
    const startedAt = ++this.#clock;
    this.#active.set(key, (this.#active.get(key) ?? 0) + 1);
    try {
      const res = await load();
      if (res.status === 200 && (this.#evictedAt.get(key) ?? 0) < startedAt) {
        await this.store.set(key, res.body, ttlSeconds);
      }
      return res;
    } finally {
      const left = (this.#active.get(key) ?? 1) - 1;
      if (left > 0) this.#active.set(key, left);
      else {
        this.#active.delete(key);
        this.#evictedAt.delete(key);
      }
    }
  }

  /** Drops the entries everywhere (the shared store too) and keeps running loads from storing them. */
  async evict(keys: string[]): Promise<void> {
    for (const key of keys) this.#supersede(key);
    await this.store.delete(keys);
  }

  /** Loads of `key` running now will not store their answer, and new callers do not join them. */
  #supersede(key: string): void {
    if (this.#active.has(key)) this.#evictedAt.set(key, ++this.#clock);
    this.#inflight.delete(key);
  }
}
