import { eq, sql } from "drizzle-orm";
import type { Queryable } from "../../../shared/db/database.js";
import { webhookEvents, type WebhookEventRow } from "../sync.tables.js";

export type NewWebhookEvent = { id: string; type: string; integrationId: string | null; orgId: string | null; payload: unknown };

/** Stores an event once; null when an event with this id was stored before (a repeated delivery). */
export async function storeWebhookEvent(q: Queryable, event: NewWebhookEvent): Promise<WebhookEventRow | null> {
  const [row] = await q.insert(webhookEvents).values(event).onConflictDoNothing({ target: webhookEvents.id }).returning();
  return row ?? null;
}

export async function findWebhookEvent(q: Queryable, id: string): Promise<WebhookEventRow | null> {
  const [row] = await q.select().from(webhookEvents).where(eq(webhookEvents.id, id));
  return row ?? null;
}

export async function settleWebhookEvent(q: Queryable, id: string, status: "processed" | "ignored" | "failed", message: string): Promise<void> {
  await q
    .update(webhookEvents)
    .set({ status, message, processedAt: sql`now()`, ...(status === "failed" ? { lastError: message } : {}) })
    .where(eq(webhookEvents.id, id));
}

export async function recordWebhookAttempt(q: Queryable, id: string, error: string): Promise<void> {
  await q
    .update(webhookEvents)
    .set({ attempts: sql`${webhookEvents.attempts} + 1`, lastError: error })
    .where(eq(webhookEvents.id, id));
}

/** `processed` of WebhookResponse: the event's work is done, or there was nothing to do. */
export const isProcessed = (row: Pick<WebhookEventRow, "status">) => row.status === "processed" || row.status === "ignored";
