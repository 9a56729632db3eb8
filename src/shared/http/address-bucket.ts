/**
 * A per-address count of requests in fixed one-minute windows, in process. For requests that are
 * not let through a shared limit (the webhook receivers' unauthentic deliveries): the caller decides
 * what counts, so an authentic request never uses up anything. Memory is one number per address
 * seen in the current minute.
 */
export class AddressBucket {
  private window = -1;
  private readonly counts = new Map<string, number>();
  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one request of `address`: 0 while within the limit, else the seconds until the window ends. */
  hit(address: string): number {
    const t = this.now();
    const window = Math.floor(t / 60_000);
    if (window !== this.window) {
      this.window = window;
      this.counts.clear();
    }
    const n = (this.counts.get(address) ?? 0) + 1;
    this.counts.set(address, n);
    if (this.perMinute <= 0 || n <= this.perMinute) return 0;
    return Math.max(1, Math.ceil(((window + 1) * 60_000 - t) / 1000));
  }
}
