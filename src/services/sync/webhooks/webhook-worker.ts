import type { JobResult } from "pg-boss";
import type { WebhookKind } from "../../../contracts/proxy/webhooks.js";
import type { SyncModel, WebhookEventRow } from "../sync.tables.js";
import { deltaSyncFor, WEBHOOK_HANDLERS, type WebhookOutcome, type WebhookWorkContext } from "./webhook-handlers.js";
import { findWebhookEvents, recordWebhookAttempt, settleWebhookEvents, type WebhookSettlement } from "./webhook-events.repository.js";

/** A `webhook-events` job as the queue hands it out. */
export type WebhookEventJob = { id: string; data: { eventId: string }; retryCount: number; retryLimit: number };

type Item = { job: WebhookEventJob; event: WebhookEventRow };

/**
 * Runs the work of a batch of stored events, each once: an event already settled (a repeated job)
 * does nothing. The events of one integration that ask for an incremental sync (data-changed,
 * sync-finished) start it together, with one trigger; the other kinds run event by event. Events
 * are settled in one statement. A failure is recorded on its event and its job fails, so the queue
 * retries it with backoff; after the last attempt the event is marked failed with the error.
 * Answers each job's outcome.
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
  const results: JobResult[] = [];
  const settled: WebhookSettlement[] = [];
  const finished: { event: WebhookEventRow; outcome: WebhookOutcome }[] = [];
  const done = (item: Item, outcome: WebhookOutcome) => {
    settled.push({ id: item.event.id, ...outcome });
    finished.push({ event: item.event, outcome });
    results.push({ id: item.job.id, status: "completed" });
  };
  const failed = async (item: Item, err: unknown) => {
    const message = err instanceof Error ? err.message : String(err);
    const log = ctx.logger.child({ event_id: item.event.id, event_type: item.event.type, integration_id: item.event.integrationId });
    await recordWebhookAttempt(ctx.db, item.event.id, message);
    if (item.job.retryCount >= item.job.retryLimit) {
      settled.push({ id: item.event.id, status: "failed", message: `work failed after retries: ${message}` });
      results.push({ id: item.job.id, status: "completed" });
      log.error({ err: message }, "webhook event failed");
    } else {
      results.push({ id: item.job.id, status: "failed", output: { message } });
      log.warn({ err: message }, "webhook event work failed; retrying");
    }
  };

  const deltas = new Map<string, { models: Set<SyncModel>; kinds: Set<string>; items: Item[] }>();
  const oneByOne: Item[] = [];
  for (const job of jobs) {
    const event = events.get(job.data.eventId);
    if (event?.status !== "queued") {
      results.push({ id: job.id, status: "completed" });
      continue;
    }
    const handler = WEBHOOK_HANDLERS[event.type as WebhookKind];
    if (!("delta" in handler)) {
      oneByOne.push({ job, event });
      continue;
    }
    const asked = handler.delta((event.payload as { data: never }).data);
    if (!Array.isArray(asked)) done({ job, event }, asked);
    else if (!event.integrationId) done({ job, event }, { status: "ignored", message: "integration is not recorded or was deleted" });
    else {
      const group = deltas.get(event.integrationId) ?? { models: new Set(), kinds: new Set(), items: [] };
      for (const m of asked) group.models.add(m);
      group.kinds.add(event.type);
      group.items.push({ job, event });
      deltas.set(event.integrationId, group);
    }
  }

  for (const item of oneByOne) {
    const log = ctx.logger.child({ event_id: item.event.id, event_type: item.event.type, integration_id: item.event.integrationId });
    try {
      const handler = WEBHOOK_HANDLERS[item.event.type as WebhookKind] as {
        handle: (data: never, c: WebhookWorkContext, id: string) => Promise<WebhookOutcome>;
      };
      const outcome = await handler.handle((item.event.payload as { data: never }).data, ctx, item.event.id);
      // Settled at once: its effects are done, a later failure in the batch must not repeat them.
      await settleWebhookEvents(ctx.db, [{ id: item.event.id, ...outcome }]);
      results.push({ id: item.job.id, status: "completed" });
      log.info({ status: outcome.status }, outcome.message);
    } catch (err) {
      await failed(item, err);
    }
  }
  for (const [integrationId, group] of deltas) {
    try {
      const outcome = await deltaSyncFor(ctx, integrationId, [...group.models], [...group.kinds].sort().join("+"));
      for (const item of group.items) done(item, outcome);
    } catch (err) {
      for (const item of group.items) await failed(item, err);
    }
  }
  await settleWebhookEvents(ctx.db, settled);
  for (const { event, outcome } of finished) {
    ctx.logger.info(
      { event_id: event.id, event_type: event.type, integration_id: event.integrationId, status: outcome.status },
      outcome.message,
    );
  }
  return results;
}
