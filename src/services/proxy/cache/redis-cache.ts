import { Redis } from "ioredis";
import type { Logger } from "pino";
import type { Cache } from "./cache.js";

export type RedisCacheOptions = {
  url: string;
  /** Namespace of every key (tests use a per-run prefix). */
  keyPrefix?: string;
  /** A command that takes longer counts as an outage for that request. */
  commandTimeoutMs?: number;
  logger: Logger;
};

/** How often an ongoing outage is logged, so a Redis that is down does not flood the log. */
const OUTAGE_LOG_INTERVAL_MS = 30_000;

/**
 * The shared cache on Redis. Commands fail fast while Redis is unreachable (no offline queue, no
 * per-command retries, a short command timeout) and every failure degrades: a read is a miss, a
 * write or eviction is dropped (evicted entries then live at most their TTL). ioredis keeps trying
 * to reconnect in the background, so the cache comes back by itself.
 */
export class RedisCache implements Cache {
  readonly kind = "redis" as const;
  readonly #redis: Redis;
  readonly #logger: Logger;
  #lastOutageLog = 0;

  constructor(opts: RedisCacheOptions) {
    this.#logger = opts.logger;
    this.#redis = new Redis(opts.url, {
      keyPrefix: opts.keyPrefix ?? "hirebridge:proxy:",
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: opts.commandTimeoutMs ?? 250,
      connectTimeout: 2000,
      retryStrategy: (times) => Math.min(times * 200, 5000),
      lazyConnect: false,
    });
    // Without a listener ioredis reports connection errors as unhandled; they are expected here.
    this.#redis.on("error", (err: Error) => this.#outage("connection", err));
  }

  #outage(op: string, err: unknown): void {
    const now = Date.now();
    if (now - this.#lastOutageLog < OUTAGE_LOG_INTERVAL_MS) return;
    this.#lastOutageLog = now;
    this.#logger.warn({ op, err: err instanceof Error ? err.message : String(err) }, "redis cache unavailable; serving from the upstream");
  }

  async get(key: string): Promise<string | null> {
    try {
      return await this.#redis.get(key);
    } catch (err) {
      this.#outage("get", err);
      return null;
    }
  }

  async set(key: string, value: string, ttlSeconds: number): Promise<void> {
    if (ttlSeconds <= 0) return;
    try {
      await this.#redis.set(key, value, "EX", Math.ceil(ttlSeconds));
    } catch (err) {
      this.#outage("set", err);
    }
  }

  async delete(keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    try {
      await this.#redis.del(...keys);
    } catch (err) {
      this.#outage("delete", err);
    }
  }

  async ping(): Promise<void> {
    await this.#redis.ping();
  }

  /** Remaining lifetime of a key in seconds (-2 when absent), for operators and tests. */
  async ttl(key: string): Promise<number> {
    return this.#redis.ttl(key);
  }

  async close(): Promise<void> {
    this.#redis.disconnect();
  }
}
