import type { WebhookKind } from "../../../contracts/proxy/webhooks.js";
import { WEBHOOK_HANDLERS, type WebhookWorkContext } from "./webhook-handlers.js";
import { findWebhookEvent, recordWebhookAttempt, settleWebhookEvent } from "./webhook-events.repository.js";

/**
 * Runs the work of one stored event, once: an event already settled (a repeated job) does nothing.
 * A failure is recorded on the event and rethrown so the queue retries it with backoff; after the
 * last attempt the event is marked failed with the error.
 */
export async function processWebhookEvent(ctx: WebhookWorkContext, eventId: string, attempt: { last: boolean }): Promise<void> {
  const event = await findWebhookEvent(ctx.db, eventId);
  if (event?.status !== "queued") return;
  const handler = WEBHOOK_HANDLERS[event.type as WebhookKind];
  const log = ctx.logger.child({ event_id: event.id, event_type: event.type, integration_id: event.integrationId });
  try {
    const data = (event.payload as { data: never }).data;
    const outcome = await handler.handle(data, ctx, event.id);
    await settleWebhookEvent(ctx.db, event.id, outcome.status, outcome.message);
    log.info({ status: outcome.status }, outcome.message);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    await recordWebhookAttempt(ctx.db, event.id, message);
    if (attempt.last) {
      await settleWebhookEvent(ctx.db, event.id, "failed", `work failed after retries: ${message}`);
      log.error({ err: message }, "webhook event failed");
      return;
    }
    log.warn({ err: message }, "webhook event work failed; retrying");
    throw err;
  }
}
