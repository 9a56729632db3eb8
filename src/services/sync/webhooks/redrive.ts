import type { WebhookEventRecord } from "../../../contracts/proxy/webhook-events.js";
import type { Db } from "../../../shared/db/database.js";
import { conflict, notFound } from "../../../shared/errors.js";
import { PRIORITY, QUEUES, type JobQueue } from "../../../shared/jobs/queue.js";
import type { WebhookEventRow } from "../sync.tables.js";
import { findOrgWebhookEvent, requeueFailedEvent } from "./webhook-events.repository.js";

export type RedriveDeps = { db: Db; queue: Pick<JobQueue, "send"> };

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** A stored event as the API answers it. */
export function toWebhookEventRecord(e: WebhookEventRow): WebhookEventRecord {
  return {
    id: e.id,
    type: e.type as WebhookEventRecord["type"],
    integration_id: e.integrationId,
    status: e.status,
    message: e.message,
    attempts: e.attempts,
    last_error: e.lastError,
    received_at: e.receivedAt.toISOString(),
    processed_at: iso(e.processedAt),
  };
}

/**
 * Re-drives a failed webhook event of the organisation: queued again with a new job, in one
 * transaction, so its work runs once more (its attempts and last error are kept; a new failure
 * counts on). 404 when the event is not the organisation's, 409 when it is not failed (queued,
 * processed and ignored events have nothing to re-drive). The one function behind the API route,
 * the SDK's `webhookEvents.redrive` and `hirebridge sync redrive`.
 */
export async function redriveWebhookEvent(deps: RedriveDeps, orgId: string, eventId: string): Promise<WebhookEventRow> {
  return deps.db.transaction(async (tx) => {
    const row = await requeueFailedEvent(tx, orgId, eventId);
    if (row) {
      await deps.queue.send(QUEUES.webhookEvents, { eventId: row.id }, { tx, priority: PRIORITY.interactive, orgId });
      return row;
    }
    const existing = await findOrgWebhookEvent(tx, orgId, eventId);
    if (!existing) throw notFound("Webhook event not found");
    throw conflict(`Only a failed event can be re-driven; this one is ${existing.status}`);
  });
}
