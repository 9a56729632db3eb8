import type { JobResult } from "pg-boss";
import type { WebhookKind } from "../../../contracts/proxy/webhooks.js";
import type { SyncModel, WebhookEventRow } from "../sync.tables.js";
import { eventDataIssues } from "./event-data.js";
import { isPermanentEventError } from "./event-errors.js";
import { deltaSyncFor, WEBHOOK_HANDLERS, type WebhookOutcome, type WebhookWorkContext } from "./webhook-handlers.js";
import { findWebhookEvents, recordWebhookAttempt, settleWebhookEvents, type WebhookSettlement } from "./webhook-events.repository.js";

/** A `webhook-events` job as the queue hands it out. */
export type WebhookEventJob = { id: string; data: { eventId: string }; retryCount: number; retryLimit: number };

type Item = { job: WebhookEventJob; event: WebhookEventRow };
type Handle = (data: never, c: WebhookWorkContext, id: string) => Promise<WebhookOutcome>;
type DeltaGroup = { models: Set<SyncModel>; kinds: Set<string>; items: Item[] };

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));
const payloadData = (event: WebhookEventRow) => (event.payload as { data: never } | null)?.data as never;

/**
 * Why a stored event's data cannot be processed (its kind's bounds, as intake checks them: an
 * event stored before intake checked them, or under older rules), or null when it can be.
 */
function unprocessable(kind: WebhookKind, data: unknown): Error | null {
  const issues =
    typeof data === "object" && data !== null && !Array.isArray(data)
      ? eventDataIssues(kind, data as Record<string, unknown>)
      : [{ loc: ["body", "data"], msg: "Input should be a valid dictionary or object" }];
  if (issues.length === 0) return null;
  return new Error(issues.map((i) => `${i.loc.slice(1).join(".")}: ${i.msg}`).join("; "));
}

/**
 * One batch's bookkeeping: what each job answers, and how each event is settled. Every event is
 * handled in isolation: whatever one throws is that event's failure, never the batch's.
 */
class Batch {
  readonly results: JobResult[] = [];
  readonly settled: WebhookSettlement[] = [];
  readonly finished: { event: WebhookEventRow; outcome: WebhookOutcome }[] = [];
  /** Integrations whose health the batch may have changed: an event failed for good, or a new state. */
  readonly touched = new Set<string>();

  constructor(private readonly ctx: WebhookWorkContext) {}

  done(item: Item, outcome: WebhookOutcome): void {
    this.settled.push({ id: item.event.id, ...outcome });
    this.finished.push({ event: item.event, outcome });
    this.results.push({ id: item.job.id, status: "completed" });
  }

  skip(job: WebhookEventJob): void {
    this.results.push({ id: job.id, status: "completed" });
  }

  /**
   * The work of `item` failed: the attempt is counted with its error. A `permanent` failure (the
   * event itself cannot be processed: retrying would fail the same way) and one on the job's last
   * attempt settle the event as failed, listed with its error and re-drivable; any other fails the
   * job so the queue retries it with backoff.
   */
  async failed(item: Item, err: unknown, permanent = false): Promise<void> {
    const message = messageOf(err);
    const log = this.ctx.logger.child({ event_id: item.event.id, event_type: item.event.type, integration_id: item.event.integrationId });
    await recordWebhookAttempt(this.ctx.db, item.event.id, message);
    if (permanent || item.job.retryCount >= item.job.retryLimit) {
      const why = permanent ? `the event cannot be processed: ${message}` : `work failed after retries: ${message}`;
      this.settled.push({ id: item.event.id, status: "failed", message: why });
      if (item.event.integrationId) this.touched.add(item.event.integrationId);
      this.results.push({ id: item.job.id, status: "completed" });
      log.error({ err: message, permanent }, "webhook event failed");
    } else {
      this.results.push({ id: item.job.id, status: "failed", output: { message } });
      log.warn({ err: message }, "webhook event work failed; retrying");
    }
  }
}

/**
 * Sorts a batch's queued events: kinds with `delta` join their integration's group (one
 * incremental sync for all of them); the others run one by one. An event whose data breaks its
 * kind's bounds (stored before intake checked them), or makes the `delta` throw, fails for good at once.
 */
async function sortEvents(batch: Batch, jobs: WebhookEventJob[], events: Map<string, WebhookEventRow>) {
  const deltas = new Map<string, DeltaGroup>();
  const oneByOne: Item[] = [];
  for (const job of jobs) {
    const event = events.get(job.data.eventId);
    if (event?.status !== "queued") {
      batch.skip(job);
      continue;
    }
    const item = { job, event };
    const handler = WEBHOOK_HANDLERS[event.type as WebhookKind];
    const poison = handler ? unprocessable(event.type as WebhookKind, payloadData(event)) : new Error(`unknown event type ${event.type}`);
    if (!handler || poison) await batch.failed(item, poison, true);
    else if (!("delta" in handler)) oneByOne.push(item);
    else {
      let asked: ReturnType<typeof handler.delta>;
      try {
        asked = handler.delta(payloadData(event));
      } catch (err) {
        await batch.failed(item, err, true);
        continue;
      }
      if (!Array.isArray(asked)) batch.done(item, asked);
      else if (!event.integrationId) batch.done(item, { status: "ignored", message: "integration is not recorded or was deleted" });
      else {
        const group = deltas.get(event.integrationId) ?? { models: new Set(), kinds: new Set(), items: [] };
        for (const m of asked) group.models.add(m);
        group.kinds.add(event.type);
        group.items.push(item);
        deltas.set(event.integrationId, group);
      }
    }
  }
  return { deltas, oneByOne };
}

/**
 * Runs the work of a batch of stored events, each once: an event already settled (a repeated job)
 * does nothing. The events of one integration that ask for an incremental sync (data-changed,
 * sync-finished) start it together, with one trigger; the other kinds run event by event. Events
 * are settled in one statement. A failure is recorded on its event and its job fails, so the queue
 * retries it with backoff; after the last attempt, or at once when the event itself cannot be
 * processed, the event is marked failed with the error. Answers each job's outcome.
 */
export async function processWebhookEvents(ctx: WebhookWorkContext, jobs: WebhookEventJob[]): Promise<JobResult[]> {
  const events = new Map(
    (
      await findWebhookEvents(
        ctx.db,
        jobs.map((j) => j.data.eventId),
      )
    ).map((e) => [e.id, e]),
  );
  const batch = new Batch(ctx);
  const { deltas, oneByOne } = await sortEvents(batch, jobs, events);
  for (const item of oneByOne) {
    try {
      const handle = (WEBHOOK_HANDLERS[item.event.type as WebhookKind] as { handle: Handle }).handle;
      const outcome = await handle(payloadData(item.event), ctx, item.event.id);
      // Settled at once: its effects are done, a later failure in the batch must not repeat them.
      await settleWebhookEvents(ctx.db, [{ id: item.event.id, ...outcome }]);
      batch.skip(item.job);
      if (item.event.type === "integration-state-changed" && item.event.integrationId) batch.touched.add(item.event.integrationId);
      ctx.logger.info(
        { event_id: item.event.id, event_type: item.event.type, integration_id: item.event.integrationId, status: outcome.status },
        outcome.message,
      );
    } catch (err) {
      // A type or validation error on the event's data fails it at once; storage, upstream and timeouts are retried.
      await batch.failed(item, err, isPermanentEventError(err));
    }
  }
  for (const [integrationId, group] of deltas) {
    try {
      const outcome = await deltaSyncFor(ctx, integrationId, [...group.models], [...group.kinds].sort().join("+"));
      for (const item of group.items) batch.done(item, outcome);
    } catch (err) {
      for (const item of group.items) await batch.failed(item, err);
    }
  }
  await settleWebhookEvents(ctx.db, batch.settled);
  for (const { event, outcome } of batch.finished) {
    ctx.logger.info(
      { event_id: event.id, event_type: event.type, integration_id: event.integrationId, status: outcome.status },
      outcome.message,
    );
  }
  for (const integrationId of batch.touched) await ctx.health?.refreshQuietly(integrationId);
  return batch.results;
}
