/**
 * One lane per endpoint: its deliveries run at most `concurrency` at a time, the rest wait in its
 * own queue. A slow or failing endpoint fills only its own lane; the dispatcher asks `busy` before
 * handing a lane more and defers (to the retry queue in the database) what would wait too long.
 */
export type LaneOptions = {
  /** Attempts in flight at once per endpoint. */
  concurrency: number;
  /** Longest a job may expect to wait in a lane, ms, before it is deferred instead. */
  waitBudgetMs: number;
  /** Most jobs one lane holds, whatever their expected wait. */
  maxQueued: number;
};

/** What a lane's latency is taken to be before its first answer. */
const INITIAL_LATENCY_MS = 50;

class Lane<J> {
  inFlight = 0;
  readonly queue: J[] = [];
  /** Exponentially weighted mean of the attempts' durations, ms. */
  latencyMs = INITIAL_LATENCY_MS;
}

export class Lanes<J> {
  private readonly lanes = new Map<string, Lane<J>>();
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly opts: LaneOptions,
    private readonly run: (job: J) => Promise<number>,
  ) {}

  /** Jobs held in all lanes (running or waiting). */
  get size(): number {
    let n = 0;
    for (const lane of this.lanes.values()) n += lane.inFlight + lane.queue.length;
    return n;
  }

  /** Whether one more job for `endpoint` would wait longer than the budget. */
  busy(endpoint: string): boolean {
    const lane = this.lanes.get(endpoint);
    if (!lane) return false;
    const ahead = lane.inFlight + lane.queue.length;
    if (ahead < this.opts.concurrency) return false;
    if (lane.queue.length >= this.opts.maxQueued) return true;
    return ((ahead - this.opts.concurrency + 1) / this.opts.concurrency) * lane.latencyMs > this.opts.waitBudgetMs;
  }

  /** Jobs waiting (not running) in `endpoint`'s lane. */
  waiting(endpoint: string): number {
    return this.lanes.get(endpoint)?.queue.length ?? 0;
  }

  /** The endpoints whose lanes are busy (for the retry claim to leave out). */
  busyEndpoints(): string[] {
    return [...this.lanes.keys()].filter((e) => this.busy(e));
  }

  push(endpoint: string, job: J): void {
    let lane = this.lanes.get(endpoint);
    if (!lane) {
      lane = new Lane<J>();
      this.lanes.set(endpoint, lane);
    }
    lane.queue.push(job);
    this.pump(endpoint, lane);
  }

  /** Takes every job still waiting in `endpoint`'s lane out (the endpoint was disabled). */
  drain(endpoint: string): J[] {
    const lane = this.lanes.get(endpoint);
    return lane ? lane.queue.splice(0) : [];
  }

  /** Takes every waiting job out of every lane (the dispatcher is stopping). */
  drainAll(): J[] {
    return [...this.lanes.keys()].flatMap((e) => this.drain(e));
  }

  /** Resolves when no job is running or waiting. */
  idle(): Promise<void> {
    if (this.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private pump(endpoint: string, lane: Lane<J>): void {
    while (lane.inFlight < this.opts.concurrency && lane.queue.length > 0) {
      const job = lane.queue.shift()!;
      lane.inFlight++;
      void this.run(job).then(
        (ms) => this.finished(endpoint, lane, ms),
        () => this.finished(endpoint, lane, null),
      );
    }
  }

  private finished(endpoint: string, lane: Lane<J>, ms: number | null): void {
    lane.inFlight--;
    if (ms !== null) lane.latencyMs = lane.latencyMs * 0.8 + ms * 0.2;
    this.pump(endpoint, lane);
    if (lane.inFlight === 0 && lane.queue.length === 0 && lane.latencyMs <= INITIAL_LATENCY_MS) this.lanes.delete(endpoint);
    if (this.size === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}
