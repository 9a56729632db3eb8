import { eq, inArray, sql } from "drizzle-orm";
import type { Queryable } from "../../../shared/db/database.js";
import { webhookEvents, type WebhookEventRow } from "../sync.tables.js";

export type NewWebhookEvent = { id: string; type: string; integrationId: string | null; orgId: string | null; payload: unknown };

/**
 * Stores a batch of events in one multi-row insert that skips ids stored before (repeated
 * deliveries); answers the ids it stored. The ids must be distinct.
 */
export async function storeWebhookEvents(q: Queryable, events: NewWebhookEvent[]): Promise<string[]> {
  if (events.length === 0) return [];
  const rows = await q
    .insert(webhookEvents)
    .values(events)
    .onConflictDoNothing({ target: webhookEvents.id })
    .returning({ id: webhookEvents.id });
  return rows.map((r) => r.id);
}

export async function findWebhookEvent(q: Queryable, id: string): Promise<WebhookEventRow | null> {
  const [row] = await q.select().from(webhookEvents).where(eq(webhookEvents.id, id));
  return row ?? null;
}

export async function findWebhookEvents(q: Queryable, ids: string[]): Promise<WebhookEventRow[]> {
  if (ids.length === 0) return [];
  return q.select().from(webhookEvents).where(inArray(webhookEvents.id, ids));
}

export type WebhookSettlement = { id: string; status: "processed" | "ignored" | "failed"; message: string };

/** Settles events in one statement; a failed one keeps its message as its last error. */
export async function settleWebhookEvents(q: Queryable, settled: WebhookSettlement[]): Promise<void> {
  if (settled.length === 0) return;
  await q.execute(sql`
    update webhook_events e
       set status = s.status, message = s.message, processed_at = now(),
           last_error = case when s.status = 'failed' then s.message else e.last_error end
      from unnest(${sql.param(settled.map((s) => s.id))}::text[], ${sql.param(settled.map((s) => s.status))}::text[], ${sql.param(settled.map((s) => s.message))}::text[]) as s(id, status, message)
     where e.id = s.id`);
}

export async function settleWebhookEvent(q: Queryable, id: string, status: WebhookSettlement["status"], message: string): Promise<void> {
  await settleWebhookEvents(q, [{ id, status, message }]);
}

export async function recordWebhookAttempt(q: Queryable, id: string, error: string): Promise<void> {
  await q
    .update(webhookEvents)
    .set({ attempts: sql`${webhookEvents.attempts} + 1`, lastError: error })
    .where(eq(webhookEvents.id, id));
}

/** `processed` of WebhookResponse: the event's work is done, or there was nothing to do. */
export const isProcessed = (row: Pick<WebhookEventRow, "status">) => row.status === "processed" || row.status === "ignored";
