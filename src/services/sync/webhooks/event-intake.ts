import type { Logger } from "pino";
import type { Database } from "../../../shared/db/database.js";
import { AppError } from "../../../shared/errors.js";
import { QUEUES, type JobQueue } from "../../../shared/jobs/queue.js";
import type { WebhookEventRow } from "../sync.tables.js";
import { findWebhookEvents, storeWebhookEvents, type NewWebhookEvent } from "./webhook-events.repository.js";

/** What storing an event came to: stored now, or a repeated delivery (with the row stored first). */
export type IntakeOutcome = { stored: true } | { stored: false; row: WebhookEventRow | null };

type Pending = { event: NewWebhookEvent; resolve: (o: IntakeOutcome) => void; reject: (e: unknown) => void };

export type EventIntakeOptions = {
  database: Database;
  queue: JobQueue;
  logger: Logger;
  /** Most events in one transaction. */
  maxBatch?: number;
  /** Transactions committing at once (PGlite has one connection: 1). */
  maxInFlight?: number;
};

/**
 * Group commit for the webhook receivers. Events that arrive while a commit is under way wait for
 * the next one, and each commit stores all of them at once: one multi-row insert deduplicating on
 * the event id and one insert of their jobs, in one transaction. Every request is answered after
 * the commit that holds its event; when that commit fails, every request in it fails with a 503
 * the upstream retries, and none of its events is stored. An event on an idle server is committed
 * on the next turn of the event loop (it waits for nothing but the requests already being read).
 */
export function createEventIntake(opts: EventIntakeOptions) {
  const maxBatch = opts.maxBatch ?? 500;
  const maxInFlight = opts.maxInFlight ?? (opts.database.kind === "pglite" ? 1 : 2);
  let pending: Pending[] = [];
  let inFlight = 0;
  let scheduled = false;

  function schedule(): void {
    if (scheduled || inFlight >= maxInFlight || pending.length === 0) return;
    scheduled = true;
    // setImmediate: requests whose bodies arrived in the same I/O turn join this batch.
    setImmediate(() => {
      scheduled = false;
      const batch = pending.slice(0, maxBatch);
      pending = pending.slice(batch.length);
      inFlight++;
      void flush(batch).finally(() => {
        inFlight--;
        schedule();
      });
      schedule();
    });
  }

  async function flush(batch: Pending[]): Promise<void> {
    // The first of several deliveries of one id in a batch is stored; the others are repeats of it.
    const first = new Map<string, NewWebhookEvent>();
    for (const p of batch) if (!first.has(p.event.id)) first.set(p.event.id, p.event);
    let stored: Set<string>;
    try {
      stored = await opts.database.db.transaction(async (tx) => {
        // In id order: two commits holding the same repeated ids take their row locks in the same
        // order, so they wait for each other instead of deadlocking.
        const ids = await storeWebhookEvents(
          tx,
          [...first.values()].sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0)),
        );
        await opts.queue.sendMany(
          QUEUES.webhookEvents,
          ids.map((eventId) => ({ eventId })),
          { tx },
        );
        return new Set(ids);
      });
    } catch (err) {
      opts.logger.error({ err, events: batch.length }, "webhook events not stored: their commit failed");
      const error = new AppError("UNAVAILABLE", "The event could not be stored; deliver it again", { headers: { "retry-after": "1" } });
      for (const p of batch) p.reject(error);
      return;
    }
    const answered = new Set<string>();
    const repeats: Pending[] = [];
    for (const p of batch) {
      if (stored.has(p.event.id) && !answered.has(p.event.id)) {
        answered.add(p.event.id);
        p.resolve({ stored: true });
      } else repeats.push(p);
    }
    if (repeats.length === 0) return;
    try {
      const rows = new Map((await findWebhookEvents(opts.database.db, [...new Set(repeats.map((p) => p.event.id))])).map((r) => [r.id, r]));
      for (const p of repeats) p.resolve({ stored: false, row: rows.get(p.event.id) ?? null });
    } catch (err) {
      // Their first deliveries are stored; answering "received" without the row's status is still true.
      opts.logger.warn({ err }, "could not read repeated webhook events back");
      for (const p of repeats) p.resolve({ stored: false, row: null });
    }
  }

  return {
    /** Stores the event with the others arriving now; resolves after the commit that holds it. */
    submit(event: NewWebhookEvent): Promise<IntakeOutcome> {
      return new Promise<IntakeOutcome>((resolve, reject) => {
        pending.push({ event, resolve, reject });
        schedule();
      });
    },
  };
}
export type EventIntake = ReturnType<typeof createEventIntake>;
