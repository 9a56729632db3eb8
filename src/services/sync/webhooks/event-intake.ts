import type { Logger } from "pino";
import type { Database } from "../../../shared/db/database.js";
import { commitsInFlight, createGroupCommit, type Settled } from "../../../shared/db/group-commit.js";
import type { AppError } from "../../../shared/errors.js";
import type { JobQueue } from "../../../shared/jobs/queue.js";
import type { WebhookEventRow } from "../sync.tables.js";
import { uuidv7s } from "../../../shared/db/uuid7.js";
import { isContentError, storeUnavailable, unstorableEvent } from "./event-errors.js";
import { findWebhookEvents, storeWebhookEventsStatement, type NewWebhookEvent } from "./webhook-events.repository.js";

/** What storing an event came to: stored now, or a repeated delivery (with the row stored first). */
export type IntakeOutcome = { stored: true } | { stored: false; row: WebhookEventRow | null };

export type EventIntakeOptions = {
  database: Database;
  queue: JobQueue;
  logger: Logger;
  /** Most events in one transaction. */
  maxBatch?: number;
  /** Transactions committing at once (PGlite has one connection: 1). */
  maxInFlight?: number;
};

/** The stored rows of events delivered again, by id; none when they cannot be read. */
async function storedRows(opts: EventIntakeOptions, ids: string[]): Promise<Map<string, WebhookEventRow>> {
  try {
    return new Map((await findWebhookEvents(opts.database.db, ids)).map((r) => [r.id, r]));
  } catch (err) {
    // Their first deliveries are stored; answering "received" without the row's status is still true.
    opts.logger.warn({ err }, "could not read repeated webhook events back");
    return new Map();
  }
}

/** A batch's store: the ids stored, and the events refused alone (by id) with their request's error. */
type Stored = { stored: Set<string>; refused: Map<string, AppError> };

/**
 * Stores the events each in its own statement, after their batch failed for one's content: the
 * ones storage refuses for their content get their 422, the others are stored (or, when storage
 * fails them otherwise, answered 503).
 */
async function storeOneByOne(
  opts: EventIntakeOptions,
  storeWithJobs: (events: NewWebhookEvent[]) => Promise<Set<string>>,
  events: NewWebhookEvent[],
): Promise<Stored> {
  const result: Stored = { stored: new Set(), refused: new Map() };
  for (const event of events) {
    try {
      for (const id of await storeWithJobs([event])) result.stored.add(id);
    } catch (err) {
      const content = isContentError(err);
      opts.logger.warn(
        { err, event_id: event.id, event_type: event.type },
        content ? "webhook event refused: storage cannot hold it" : "webhook event not stored",
      );
      result.refused.set(event.id, content ? unstorableEvent(err) : storeUnavailable(err));
    }
  }
  return result;
}

/**
 * Each request's answer, in the batch's order: its refusal; stored (the first delivery of an id);
 * or a repeated delivery, with the row stored first.
 */
async function answers(opts: EventIntakeOptions, events: NewWebhookEvent[], result: Stored): Promise<Settled<IntakeOutcome>[]> {
  const outcomes: (Settled<IntakeOutcome> | undefined)[] = [];
  const answered = new Set<string>();
  const repeats: number[] = [];
  events.forEach((event, i) => {
    const refused = result.refused.get(event.id);
    if (refused) outcomes[i] = { ok: false, error: refused };
    else if (result.stored.has(event.id) && !answered.has(event.id)) {
      answered.add(event.id);
      outcomes[i] = { ok: true, value: { stored: true } };
    } else repeats.push(i);
  });
  if (repeats.length > 0) {
    const rows = await storedRows(opts, [...new Set(repeats.map((i) => events[i]!.id))]);
    for (const i of repeats) outcomes[i] = { ok: true, value: { stored: false, row: rows.get(events[i]!.id) ?? null } };
  }
  return outcomes as Settled<IntakeOutcome>[];
}

/**
 * Group commit for the webhook receivers (shared/db/group-commit.ts): each commit stores every
 * event waiting for it with one multi-row insert deduplicating on the event id, and queues their
 * jobs, in one statement (no transaction around it). Every request is answered after the commit
 * that holds its event. When the commit fails because storage could not take a value (SQLSTATE
 * class 22 or 54: a value too long to index, say), the events are stored again one by one, so only
 * the one at fault is refused (422) and the others are stored: an event's content never fails
 * another's commit. When it fails otherwise (storage unreachable, a timeout), every request in it
 * fails with a 503 the upstream retries, and none of its events is stored.
 */
export function createEventIntake(opts: EventIntakeOptions) {
  async function store(events: NewWebhookEvent[]): Promise<Settled<IntakeOutcome>[]> {
    // The first of several deliveries of one id in a batch is stored; the others are repeats of it.
    const first = new Map<string, NewWebhookEvent>();
    for (const event of events) if (!first.has(event.id)) first.set(event.id, event);
    let result: Stored;
    try {
      result = { stored: await storeWithJobs([...first.values()]), refused: new Map() };
    } catch (err) {
      if (!isContentError(err)) {
        opts.logger.error({ err, events: events.length }, "webhook events not stored: their commit failed");
        throw storeUnavailable(err);
      }
      // One event alone is refused as it is; several are tried one by one to find which.
      opts.logger.warn({ err, events: first.size }, "a webhook event's content failed its commit");
      if (first.size === 1) throw unstorableEvent(err);
      result = await storeOneByOne(opts, storeWithJobs, [...first.values()]);
    }
    return answers(opts, events, result);
  }

  /**
   * The statement, built once (from pg-boss's insert for the queue) on the first commit rather
   * than on every one; a failure to build it is not kept, so the next commit tries again.
   */
  let statement: ReturnType<typeof storeWebhookEventsStatement> | undefined;
  const storeStatement = () =>
    (statement ??= storeWebhookEventsStatement(opts.queue).catch((err: unknown) => {
      statement = undefined;
      throw err;
    }));

  /**
   * Stores the events (distinct ids) that are new and queues a job for each, in one statement
   * (webhook-events.repository.ts): answers the ids stored.
   */
  async function storeWithJobs(events: NewWebhookEvent[]): Promise<Set<string>> {
    // In id order: two commits holding the same repeated ids take their row locks in the same
    // order, so they wait for each other instead of deadlocking.
    events.sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
    const jobIds = uuidv7s(events.length);
    const queued = await (await storeStatement())(opts.database.db, [
      JSON.stringify(
        events.map((e, n) => ({
          n,
          id: e.id,
          type: e.type,
          integration_id: e.integrationId,
          org_id: e.orgId,
          payload: e.payload,
          job: jobIds[n],
        })),
      ),
    ]);
    const eventOf = new Map(jobIds.map((job, n) => [job, events[n]!.id]));
    return new Set(queued.map((row) => eventOf.get(row.id)!));
  }

  const group = createGroupCommit<NewWebhookEvent, IntakeOutcome>({
    maxBatch: opts.maxBatch ?? 500,
    maxInFlight: opts.maxInFlight ?? commitsInFlight(opts.database.kind),
    commit: store,
  });

  return {
    /** Stores the event with the others arriving now; resolves after the commit that holds it. */
    submit: (event: NewWebhookEvent): Promise<IntakeOutcome> => group.submit(event),
  };
}
export type EventIntake = ReturnType<typeof createEventIntake>;
