import type { Cache } from "./cache.js";

type Entry = { value: string; expiresAt: number };

/**
 * In-process cache with per-entry lifetimes and a size bound. Expired entries are dropped when read;
 * when full, the oldest inserted entry goes first (Map keeps insertion order, and a set re-inserts).
 */
export class MemoryCache implements Cache {
  readonly kind = "memory" as const;
  readonly #entries = new Map<string, Entry>();

  constructor(private readonly opts: { maxEntries?: number; now?: () => number } = {}) {}

  #now(): number {
    return this.opts.now?.() ?? Date.now();
  }

  async get(key: string): Promise<string | null> {
    const entry = this.#entries.get(key);
    if (!entry) return null;
    if (entry.expiresAt <= this.#now()) {
      this.#entries.delete(key);
      return null;
    }
    return entry.value;
  }

  async set(key: string, value: string, ttlSeconds: number): Promise<void> {
    if (ttlSeconds <= 0) return;
    this.#entries.delete(key);
    this.#entries.set(key, { value, expiresAt: this.#now() + ttlSeconds * 1000 });
    const max = this.opts.maxEntries ?? 10_000;
    while (this.#entries.size > max) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.#entries.delete(oldest);
    }
  }

  async delete(keys: string[]): Promise<void> {
    for (const key of keys) this.#entries.delete(key);
  }

  async close(): Promise<void> {
    this.#entries.clear();
  }
}
