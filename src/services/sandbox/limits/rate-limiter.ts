/**
 * A token bucket over all /v1 requests: `rate` tokens per second, bursts up to `rate`. When empty,
 * `take()` answers how many whole seconds until a token is back (the 429's Retry-After).
 */
export class RateLimiter {
  #tokens = 0;
  #rate = 0;
  #at = 0;

  constructor(private readonly clock: () => number = Date.now) {}

  /** null when admitted, otherwise the seconds to wait. */
  take(rate: number): number | null {
    if (rate <= 0) return null;
    const now = this.clock();
    if (rate !== this.#rate) {
      this.#rate = rate;
      this.#tokens = rate;
    } else {
      this.#tokens = Math.min(rate, this.#tokens + ((now - this.#at) / 1000) * rate);
    }
    this.#at = now;
    if (this.#tokens >= 1) {
      this.#tokens -= 1;
      return null;
    }
    return Math.max(1, Math.ceil((1 - this.#tokens) / rate));
  }
}

/** In-flight action counts per integration (the upstream's concurrency limit). */
export class ConcurrencyTracker {
  readonly #inFlight = new Map<string, number>();

  inFlight(integrationId: string): number {
    return this.#inFlight.get(integrationId) ?? 0;
  }

  /** Takes a slot; returns the release function, or null when `limit` slots are already taken. */
  acquire(integrationId: string, limit: number): (() => void) | null {
    const current = this.inFlight(integrationId);
    if (limit > 0 && current >= limit) return null;
    this.#inFlight.set(integrationId, current + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const n = this.inFlight(integrationId) - 1;
      if (n <= 0) this.#inFlight.delete(integrationId);
      else this.#inFlight.set(integrationId, n);
    };
  }
}
