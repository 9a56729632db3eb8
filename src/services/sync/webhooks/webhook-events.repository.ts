import { and, desc, eq, inArray, sql } from "drizzle-orm";
import type { Queryable } from "../../../shared/db/database.js";
import { namedStatement, type NamedStatement } from "../../../shared/db/named-statement.js";
import { PRIORITY, QUEUES, type JobQueue } from "../../../shared/jobs/queue.js";
import { webhookEvents, type WebhookEventRow } from "../sync.tables.js";

export type NewWebhookEvent = { id: string; type: string; integrationId: string | null; orgId: string | null; payload: unknown };

/** Statements by their text: one per queue statement pg-boss builds, named for node-postgres and PGlite. */
const statements = new Map<string, NamedStatement<{ id: string }>>();

/**
 * The statement that stores a batch of events and queues their jobs at once: `$1` is a JSON array
 * of `{n, id, type, integration_id, org_id, payload, job}` with distinct ids; rows whose id is
 * stored already (repeated deliveries) are skipped and get no job; each stored event gets the
 * job whose id is its `job`. It answers the ids of the jobs queued. Rows are inserted in the
 * order of `n`. One statement, so one round trip and no transaction: a --cpu-prof and timings
 * of the receivers under load showed each commit's four round trips (begin, insert, insert jobs,
 * commit) at about 1 ms each, while the server and Postgres idled for a quarter of the time.
 */
export async function storeWebhookEventsStatement(queue: Pick<JobQueue, "insertJobsWith">): Promise<NamedStatement<{ id: string }>> {
  const text = await queue.insertJobsWith(
    QUEUES.webhookEvents,
    `intake as (
       select * from jsonb_to_recordset($1::jsonb)
         as i(n int, id text, type text, integration_id text, org_id uuid, payload jsonb, job uuid)
     ), stored_events as (
       insert into webhook_events (id, type, integration_id, org_id, payload)
       select id, type, integration_id, org_id, payload from intake order by n
       on conflict (id) do nothing
       returning id
     )`,
    // Each job counts against its organisation's share (its group; the integration's id while the
    // event names no organisation yet); a connect's integration-created goes before the data events.
    `select coalesce(json_agg(json_build_object(
         'id', i.job, 'data', json_build_object('eventId', s.id),
         'groupId', coalesce(i.org_id::text, i.integration_id),
         'priority', case when i.type = 'integration-created' then ${PRIORITY.interactive} else ${PRIORITY.webhook} end
       )), '[]'::json)
       from stored_events s join intake i on i.id = s.id`,
  );
  let statement = statements.get(text);
  if (!statement) {
    statement = namedStatement(`store_webhook_events_${statements.size}`, text);
    statements.set(text, statement);
  }
  return statement;
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

/**
 * Marks failed the events still queued whose job failed for good without the worker settling them
 * (the dead letter queue's work): their last error, or `reason` when none was recorded, becomes
 * their message. Answers how many it marked.
 */
export async function failDeadLetteredEvents(q: Queryable, ids: string[], reason: string): Promise<number> {
  if (ids.length === 0) return 0;
  const rows = await q
    .update(webhookEvents)
    .set({
      status: "failed",
      message: sql`'work failed after retries: ' || coalesce(${webhookEvents.lastError}, ${reason})`,
      lastError: sql`coalesce(${webhookEvents.lastError}, ${reason})`,
      processedAt: sql`now()`,
    })
    .where(and(inArray(webhookEvents.id, ids), eq(webhookEvents.status, "queued")))
    .returning({ id: webhookEvents.id });
  return rows.length;
}

/** The organisation's events in `status`, newest first (one integration's with `integrationId`). */
export async function listWebhookEvents(
  q: Queryable,
  orgId: string,
  opts: { status: WebhookEventRow["status"]; integrationId?: string | undefined; limit: number },
): Promise<WebhookEventRow[]> {
  const where = [eq(webhookEvents.orgId, orgId), eq(webhookEvents.status, opts.status)];
  if (opts.integrationId !== undefined) where.push(eq(webhookEvents.integrationId, opts.integrationId));
  return q
    .select()
    .from(webhookEvents)
    .where(and(...where))
    .orderBy(desc(webhookEvents.receivedAt), desc(webhookEvents.id))
    .limit(opts.limit);
}

/**
 * A failed event of the organisation queued again (its attempts and last error kept); null when it
 * is not the organisation's or not failed (nothing changes).
 */
export async function requeueFailedEvent(q: Queryable, orgId: string, id: string): Promise<WebhookEventRow | null> {
  const [row] = await q
    .update(webhookEvents)
    .set({ status: "queued", message: null, processedAt: null })
    .where(and(eq(webhookEvents.id, id), eq(webhookEvents.orgId, orgId), eq(webhookEvents.status, "failed")))
    .returning();
  return row ?? null;
}

/** The organisation's event (any status); null when it is not the organisation's. */
export async function findOrgWebhookEvent(q: Queryable, orgId: string, id: string): Promise<WebhookEventRow | null> {
  const [row] = await q
    .select()
    .from(webhookEvents)
    .where(and(eq(webhookEvents.id, id), eq(webhookEvents.orgId, orgId)));
  return row ?? null;
}
