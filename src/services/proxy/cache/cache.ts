/**
 * The proxy's response cache: text values under string keys, each with its own lifetime. One
 * interface, two stores: in-process (the default) and Redis (REDIS_URL), so several proxy instances
 * share entries and evictions. A store never throws: an unreachable Redis reads as a miss and drops
 * writes, so an outage costs upstream calls, not errors.
 */
export interface Cache {
  readonly kind: "memory" | "redis";
  get(key: string): Promise<string | null>;
  /** `ttlSeconds` must be positive; a lifetime of 0 means "do not cache" and is the caller's to skip. */
  set(key: string, value: string, ttlSeconds: number): Promise<void>;
  delete(keys: string[]): Promise<void>;
  /** Throws when the store cannot be reached now (readiness reports it; the other methods degrade instead). */
  ping?(): Promise<void>;
  close(): Promise<void>;
}

/** Keys of everything cached for the proxy; one place so eviction names exactly what was written. */
export const cacheKeys = {
  tools: (category: string) => `tools:${category}`,
  integration: (integrationId: string) => `integration:${integrationId}`,
};

/** Every key cached for one integration: evicted together when it changes or goes away. */
export const integrationKeys = (integrationId: string) => [cacheKeys.integration(integrationId)];
