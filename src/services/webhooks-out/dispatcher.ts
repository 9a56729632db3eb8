import type { Logger } from "pino";
import type { Database } from "../../shared/db/database.js";
import { createGroupCommit } from "../../shared/db/group-commit.js";
import {
  claimDeliveries,
  claimMessages,
  deleteExpired,
  loadEndpoints,
  loadMessages,
  nextDueAt,
  recordResults,
  type ClaimedMessage,
  type DeliveryEndpoint,
  type HealthRow,
  type ResultRow,
} from "./dispatch.repository.js";
import { Lanes } from "./lanes.js";
import { nextAttemptAt } from "./schedule.js";
import { bodyOf } from "./body.js";
import { type AttemptOutcome, BASE_HEADERS, type Sender } from "./sender.js";
import { signatureHeader } from "./signing.js";

export type DispatcherOptions = {
  database: Database;
  logger: Logger;
  sender: Sender;
  /** Delay before each attempt of a chain, ms (schedule.ts). */
  schedule: readonly number[];
  leaseSeconds: number;
  timeoutMs: number;
  disableAfterSeconds: number;
  retentionDays: number;
  /** How often the outbox and the retry queue are looked at without a wake-up, ms. */
  pollMs?: number;
};

type Message = Omit<ClaimedMessage, "endpoints">;
/** One attempt to make: a first one from the outbox (`fresh`), or one of the retry queue (`queued`). */
type Job = {
  message: Message;
  endpoint: DeliveryEndpoint;
  attempt: number;
  chainStart: number;
  manual: boolean;
  queued: boolean;
  fresh: boolean;
};
type Item = { result: ResultRow } | { done: string };

const BATCH = 200;
/** Most jobs this instance holds (running or waiting) before it stops claiming. */
const MAX_HELD = 5000;
const PER_ENDPOINT_CONCURRENCY = 8;
const CLEANUP_EVERY_MS = 3_600_000;
const CLEANUP_BATCH = 10_000;

/** The failure as one line, for the endpoint's disabled reason. */
const failureOf = (r: ResultRow) => (r.s !== null ? `HTTP ${r.s}` : (r.err ?? "no answer"));

/**
 * A result that records no attempt: the delivery is deferred (to `next`) or, with `next` null,
 * leaves the queue attempted no more. Built field by field in ResultRow's order, as the results of
 * attempts are, so every row of a batch has one shape (a spread put the given fields first).
 */
const noAttempt = (r: Pick<ResultRow, "m" | "e" | "n" | "manual" | "next" | "chain" | "queued">): ResultRow => ({
  m: r.m,
  e: r.e,
  n: r.n,
  at: null,
  s: null,
  ok: false,
  ms: 0,
  err: null,
  body: null,
  manual: r.manual,
  next: r.next,
  chain: r.chain,
  queued: r.queued,
  deferred: true,
  h: null,
});

/** A queued delivery whose event is gone (past the retention): it leaves the queue, attempted no more. */
const abandoned = (m: string, e: string): ResultRow => noAttempt({ m, e, n: 0, manual: false, next: null, chain: 0, queued: true });

/** How each endpoint fared in a batch: whether it recovered, since when it fails, whether it said 410 Gone. */
export function healthOf(results: ResultRow[]): HealthRow[] {
  const byEndpoint = new Map<string, ResultRow[]>();
  for (const r of results) if (!r.deferred) byEndpoint.set(r.e, [...(byEndpoint.get(r.e) ?? []), r]);
  return [...byEndpoint].map(([e, rows]) => {
    rows.sort((a, b) => a.at!.localeCompare(b.at!));
    const lastOk = rows.findLastIndex((r) => r.ok);
    const failing = rows.slice(lastOk + 1);
    return {
      e,
      recovered: lastOk >= 0,
      failing_from: failing[0]?.at ?? null,
      gone: rows.some((r) => r.s === 410),
      last: failing.length ? failureOf(failing[failing.length - 1]!) : "",
    };
  });
}

/**
 * Delivers the outbox (docs/webhooks-out.md, "Delivery"). Each instance claims pending events in
 * batches (a lease, SKIP LOCKED), makes every subscribed endpoint's first attempt at once through
 * that endpoint's lane, and records the attempts, the retries they schedule and the events done
 * in one statement per batch of results (group commit). Failed attempts wait in
 * `webhook_deliveries` for their turn, claimed the same way, per endpoint. A wake-up (a commit in
 * this process, a re-send) starts a look at once; otherwise the instance looks every `pollMs`.
 */
export class Dispatcher {
  private readonly lanes: Lanes<Job>;
  private readonly log: Logger;
  private readonly results;
  private readonly outstanding = new Map<string, number>();
  private readonly flushes = new Set<Promise<unknown>>();
  private ticking: Promise<void> | null = null;
  private again = false;
  private wakeQueued = false;
  /** The retry queue is to be looked at too (a poll, a due time, a re-send), not only the outbox. */
  private retriesDue = true;
  /** Claiming stopped for want of room; a finished job starts it again. */
  private starved = false;
  /**
   * Deliveries wait in the retry queue for a lane that was busy (a deferred first attempt, or a
   * claim that left busy endpoints out): a job finishing in a lane that has room looks again.
   */
  private heldBack = false;
  /** First attempts deferred so far because their lane was busy. */
  private busyDeferrals = 0;
  private closing = false;
  private pollTimer: NodeJS.Timeout | undefined;
  private dueTimer: { at: number; timer: NodeJS.Timeout } | undefined;
  private cleanupTimer: NodeJS.Timeout | undefined;

  constructor(private readonly opts: DispatcherOptions) {
    this.log = opts.logger;
    const waitBudgetMs = Math.min(5000, Math.max(0, opts.leaseSeconds * 1000 - opts.timeoutMs) / 2);
    this.lanes = new Lanes<Job>({ concurrency: PER_ENDPOINT_CONCURRENCY, waitBudgetMs, maxQueued: 1000 }, (job) => this.attempt(job));
    this.results = createGroupCommit<Item, void>({
      maxBatch: 1000,
      // One at a time: an event's `done` is never committed before the results that precede it.
      maxInFlight: 1,
      commit: async (items) => {
        await this.flush(items);
        return items.map(() => ({ ok: true, value: undefined }));
      },
    });
  }

  start(): void {
    this.pollTimer = setInterval(() => this.wake(true), this.opts.pollMs ?? 1000);
    this.pollTimer.unref();
    this.cleanupTimer = setInterval(() => void this.cleanup(), CLEANUP_EVERY_MS);
    this.cleanupTimer.unref();
    this.wake(true);
    void nextDueAt(this.opts.database).then(
      (at) => at && this.armDue(at.getTime()),
      () => {},
    );
  }

  /**
   * Look at the outbox now, and at the retry queue too with `retries` (coalesced: the wake-ups of
   * one turn of the event loop make one look).
   */
  wake(retries = false): void {
    if (retries) this.retriesDue = true;
    if (this.wakeQueued || this.closing) return;
    this.wakeQueued = true;
    setImmediate(() => {
      this.wakeQueued = false;
      void this.tick();
    });
  }

  /** Stops claiming, defers what waits in the lanes, lets running attempts finish and records everything. */
  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.pollTimer);
    clearInterval(this.cleanupTimer);
    if (this.dueTimer) clearTimeout(this.dueTimer.timer);
    await this.ticking;
    for (const job of this.lanes.drainAll()) this.defer(job);
    await this.lanes.idle();
    while (this.flushes.size) await Promise.allSettled([...this.flushes]);
    await this.opts.sender.close();
  }

  private tick(): Promise<void> {
    if (this.ticking) {
      this.again = true;
      return this.ticking;
    }
    this.ticking = this.look().finally(() => {
      this.ticking = null;
    });
    return this.ticking;
  }

  private async look(): Promise<void> {
    try {
      do {
        this.again = false;
        const room = MAX_HELD - this.lanes.size;
        if (room <= 0) {
          this.starved = true;
          break;
        }
        const deferredBefore = this.busyDeferrals;
        const fresh = await this.claimFresh(Math.min(room, BATCH));
        // A lane too busy for this batch: the next waits until a lane has room (jobDone wakes it),
        // instead of claiming on into the retry queue (two more writes per delivery).
        const lanesFull = this.busyDeferrals > deferredBefore;
        const retries = this.retriesDue ? await this.claimRetries(Math.min(room, BATCH)) : 0;
        // A claim that found due deliveries looks again (it takes only a few of each endpoint's at a
        // time): a backlog in the retry queue drains at the lanes' pace, not one claim per poll.
        this.retriesDue = retries > 0;
        if ((fresh === BATCH && !lanesFull) || retries > 0) this.again = true;
      } while (this.again && !this.closing);
    } catch (err) {
      this.retriesDue = true;
      this.log.warn({ err }, "looking for webhook deliveries failed; trying again shortly");
    }
  }

  private async claimFresh(limit: number): Promise<number> {
    const claimed = await claimMessages(this.opts.database, limit, this.opts.leaseSeconds);
    if (claimed.length === 0) return 0;
    const endpoints = await loadEndpoints(this.opts.database, [...new Set(claimed.flatMap((m) => m.endpoints))]);
    for (const { endpoints: ids, ...message } of claimed) {
      const targets = ids.map((id) => endpoints.get(id)).filter((e) => e !== undefined);
      if (targets.length === 0) {
        this.enqueue({ done: message.id });
        continue;
      }
      this.outstanding.set(message.id, targets.length);
      for (const endpoint of targets) {
        this.submit({ message, endpoint, attempt: 1, chainStart: 0, manual: false, queued: false, fresh: true });
      }
    }
    return claimed.length;
  }

  private async claimRetries(limit: number): Promise<number> {
    const busy = this.lanes.busyEndpoints();
    if (busy.length) this.heldBack = true;
    const claimed = await claimDeliveries(this.opts.database, {
      limit,
      perEndpoint: PER_ENDPOINT_CONCURRENCY * 2,
      busy,
      leaseSeconds: this.opts.leaseSeconds,
    });
    if (claimed.length === 0) return 0;
    const [messages, endpoints] = await Promise.all([
      loadMessages(this.opts.database, [...new Set(claimed.map((d) => d.messageId))]),
      loadEndpoints(this.opts.database, [...new Set(claimed.map((d) => d.endpointId))]),
    ]);
    const byId = new Map(messages.map((m) => [m.id, m]));
    for (const d of claimed) {
      const message = byId.get(d.messageId);
      const endpoint = endpoints.get(d.endpointId);
      const job = { attempt: d.attempts + 1, chainStart: d.chainStart, manual: d.manual, queued: true, fresh: false };
      if (!message) this.enqueue({ result: abandoned(d.messageId, d.endpointId) });
      else if (!endpoint) this.defer({ ...job, message, endpoint: { id: d.endpointId, url: "", secrets: [] } });
      else this.lanes.push(endpoint.id, { ...job, message, endpoint });
    }
    return claimed.length;
  }

  private submit(job: Job): void {
    const delay = this.opts.schedule[0] ?? 0;
    if (delay > 0) this.defer(job, delay);
    else if (this.lanes.busy(job.endpoint.id)) {
      this.heldBack = true;
      this.busyDeferrals++;
      this.defer(job);
    } else this.lanes.push(job.endpoint.id, job);
  }

  /** Makes one attempt and records it; answers its duration (the lane's latency). */
  private async attempt(job: Job): Promise<number> {
    const body = bodyOf(job.message);
    const at = new Date();
    const timestamp = Math.floor(at.getTime() / 1000);
    const headers = {
      "webhook-id": job.message.id,
      "webhook-timestamp": String(timestamp),
      "webhook-signature": signatureHeader(job.endpoint.secrets, job.message.id, timestamp, body),
    };
    const outcome = await this.opts.sender.send(job.endpoint.url, headers, body);
    this.settle(job, at, outcome, { ...BASE_HEADERS, ...headers });
    return outcome.latencyMs;
  }

  private settle(job: Job, at: Date, o: AttemptOutcome, headers: Record<string, string>): void {
    const next = o.ok ? null : nextAttemptAt(this.opts.schedule, job.attempt - job.chainStart, Date.now(), o.retryAfterMs);
    this.enqueue({
      result: {
        m: job.message.id,
        e: job.endpoint.id,
        n: job.attempt,
        at: at.toISOString(),
        s: o.statusCode,
        ok: o.ok,
        ms: o.latencyMs,
        err: o.error,
        body: o.response,
        manual: job.manual,
        next: next?.toISOString() ?? null,
        chain: job.chainStart,
        queued: job.queued,
        deferred: false,
        h: headers,
      },
    });
    this.jobDone(job);
  }

  private deferral(job: Job, delayMs = 0): ResultRow {
    return noAttempt({
      m: job.message.id,
      e: job.endpoint.id,
      n: job.attempt - 1,
      manual: job.manual,
      next: new Date(Date.now() + delayMs).toISOString(),
      chain: job.chainStart,
      queued: job.queued,
    });
  }

  /** Leaves the attempt to the retry queue (due after `delayMs`): the lane is busy, disabled or stopping. */
  private defer(job: Job, delayMs = 0): void {
    this.enqueue({ result: this.deferral(job, delayMs) });
    this.jobDone(job);
  }

  private jobDone(job: Job): void {
    if (job.fresh) {
      const left = (this.outstanding.get(job.message.id) ?? 1) - 1;
      if (left > 0) this.outstanding.set(job.message.id, left);
      else {
        this.outstanding.delete(job.message.id);
        this.enqueue({ done: job.message.id });
      }
    }
    if (this.starved && this.lanes.size < MAX_HELD / 2) {
      this.starved = false;
      this.wake(true);
    } else if (this.heldBack && this.lanes.waiting(job.endpoint.id) < PER_ENDPOINT_CONCURRENCY) {
      this.heldBack = false;
      this.wake(true);
    }
  }

  private enqueue(item: Item): void {
    const flush = this.results.submit(item).catch((err: unknown) => {
      // Lost with its batch: the claims run out and the events and retries are taken again.
      this.log.warn({ err }, "recording webhook deliveries failed; their claims expire and they are made again");
    });
    this.flushes.add(flush);
    void flush.finally(() => this.flushes.delete(flush));
  }

  private async flush(items: Item[]): Promise<void> {
    const results = items.flatMap((i) => ("result" in i ? [i.result] : []));
    const done = items.flatMap((i) => ("done" in i ? [i.done] : []));
    const disabled = await recordResults(this.opts.database, {
      results,
      done,
      health: healthOf(results),
      disableAfterSeconds: this.opts.disableAfterSeconds,
    });
    for (const endpoint of disabled) {
      this.log.warn({ endpoint_id: endpoint }, "webhook endpoint disabled after sustained failure");
      for (const job of this.lanes.drain(endpoint)) this.defer(job);
    }
    const soonest = Math.min(...results.map((r) => (r.next ? Date.parse(r.next) : Number.POSITIVE_INFINITY)));
    if (Number.isFinite(soonest)) this.armDue(soonest);
  }

  /** A look at the retry queue when its earliest delivery this instance knows of is due. */
  private armDue(at: number): void {
    if (this.closing || (this.dueTimer && this.dueTimer.at <= at)) return;
    if (this.dueTimer) clearTimeout(this.dueTimer.timer);
    const timer = setTimeout(
      () => {
        this.dueTimer = undefined;
        this.wake(true);
      },
      Math.max(0, at - Date.now()),
    );
    timer.unref();
    this.dueTimer = { at, timer };
  }

  private async cleanup(): Promise<void> {
    try {
      while ((await deleteExpired(this.opts.database, this.opts.retentionDays, CLEANUP_BATCH)) >= CLEANUP_BATCH && !this.closing);
    } catch (err) {
      this.log.warn({ err }, "deleting expired webhook deliveries failed");
    }
  }
}
