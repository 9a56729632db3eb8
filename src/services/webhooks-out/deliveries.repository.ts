import type { DeliveryStatus, WebhookAttempt, WebhookDelivery, WebhookMessage } from "../../contracts/webhooks-out/endpoints.js";
import type { EventType } from "../../contracts/webhooks-out/events.js";
import type { Database } from "../../shared/db/database.js";
import { bodyOf } from "./body.js";

type DeliveryRow = {
  id: string;
  type: string;
  created_at: Date;
  data: string;
  test: boolean;
  next_attempt_at: Date | null;
  status: DeliveryStatus;
  attempts: (Omit<WebhookAttempt, "attempted_at"> & { attempted_at: string })[] | null;
};

/**
 * A page of an endpoint's deliveries, newest event first: the events it had an attempt at or has
 * one scheduled for, each with its status and attempts (newest first). Keyset on the event id
 * (time-ordered): each source is read in index order and at most `limit` (+1) deep, so a page costs
 * the same however long the history. With a status filter the ids are read 5 pages deep and the
 * page may hold fewer items; `next` says where to go on.
 */
export async function listDeliveries(
  database: Database,
  orgId: string,
  endpointId: string,
  page: { limit: number; before: string | null; status: DeliveryStatus | null },
): Promise<{ items: WebhookDelivery[]; next: string | null }> {
  const scan = page.status ? page.limit * 5 : page.limit + 1;
  const ids = (
    await database.query<{ id: string }>(
      `select message_id as id from (
         (select distinct message_id from webhook_attempts
           where endpoint_id = $1 and ($2::uuid is null or message_id < $2) order by message_id desc limit $3)
         union
         (select message_id from webhook_deliveries
           where endpoint_id = $1 and ($2::uuid is null or message_id < $2) order by message_id desc limit $3)) u
       order by message_id desc limit $3`,
      [endpointId, page.before, scan],
    )
  ).map((r) => r.id);
  const items = await deliveriesOf(database, orgId, endpointId, ids, page.status, page.limit);
  // Filtered, a full page goes on after its last item (the scan may hold more matches past it:
  // going on from the scan's end would skip them), a short one after the scan's end, unless the
  // scan reached the end of the history. Unfiltered, the extra id says another page exists.
  if (page.status && items.length === page.limit) return { items, next: items.at(-1)!.message_id };
  if (ids.length < scan) return { items, next: null };
  const next = page.status ? ids.at(-1)! : items.at(-1)?.message_id;
  return { items, next: next ?? null };
}

/** One delivery of the endpoint (its event the organisation's); null when there is none. */
export async function findDelivery(
  database: Database,
  orgId: string,
  endpointId: string,
  messageId: string,
): Promise<WebhookDelivery | null> {
  const [found] = await database.query<{ id: string }>(
    `select message_id as id from webhook_attempts where endpoint_id = $1 and message_id = $2
     union select message_id from webhook_deliveries where endpoint_id = $1 and message_id = $2`,
    [endpointId, messageId],
  );
  if (!found) return null;
  return (await deliveriesOf(database, orgId, endpointId, [messageId], null, 1))[0] ?? null;
}

/** The deliveries of `ids` to the endpoint (events of the organisation only), newest first, at most `limit`. */
async function deliveriesOf(
  database: Database,
  orgId: string,
  endpointId: string,
  ids: string[],
  status: DeliveryStatus | null,
  limit: number,
): Promise<WebhookDelivery[]> {
  const rows = await database.query<DeliveryRow>(
    `with page as (
       select m.id, m.type, m.created_at, m.data::text as data, m.test_endpoint_id is not null as test, d.next_attempt_at,
              case when d.message_id is not null then 'pending'
                   when (select a.ok from webhook_attempts a where a.message_id = m.id and a.endpoint_id = $1
                          order by a.attempt desc limit 1) then 'succeeded'
                   else 'failed' end as status
         from webhook_messages m
         left join webhook_deliveries d on d.message_id = m.id and d.endpoint_id = $1
        where m.id = any($2::uuid[]) and m.organization_id = $3)
     select p.*, (select json_agg(json_build_object(
                    'attempt', a.attempt, 'attempted_at', a.attempted_at, 'status_code', a.status_code, 'ok', a.ok,
                    'latency_ms', a.latency_ms, 'error', a.error, 'response', a.response, 'manual', a.manual,
                    'request_headers', a.request_headers)
                    order by a.attempt desc)
                    from webhook_attempts a where a.message_id = p.id and a.endpoint_id = $1) as attempts
       from page p where $4::text is null or p.status = $4
      order by p.id desc limit $5`,
    [endpointId, ids, orgId, status, limit],
  );
  return rows.map(
    (r): WebhookDelivery => ({
      message_id: r.id,
      webhook_id: r.id,
      type: r.type as EventType,
      timestamp: r.created_at.toISOString(),
      test: r.test,
      payload: JSON.parse(bodyOf({ type: r.type, createdAt: r.created_at, data: r.data, test: r.test })) as unknown,
      status: r.status,
      next_attempt_at: r.next_attempt_at?.toISOString() ?? null,
      attempts: (r.attempts ?? []).map((a) => ({ ...a, attempted_at: new Date(a.attempted_at).toISOString() })),
    }),
  );
}

export async function findMessage(database: Database, orgId: string, id: string): Promise<WebhookMessage | null> {
  const [row] = await database.query<{ id: string; type: string; data: string; created_at: Date; test: boolean }>(
    `select id, type, data::text as data, created_at, test_endpoint_id is not null as test
       from webhook_messages where id = $1 and organization_id = $2`,
    [id, orgId],
  );
  return row
    ? { id: row.id, type: row.type as EventType, timestamp: row.created_at.toISOString(), test: row.test, data: JSON.parse(row.data) }
    : null;
}

/**
 * Queues a re-send of an event of the organisation to one of its endpoints, due now: a new chain
 * of the retry schedule, the attempts numbered on from the last. Answers when it is due; null when
 * the event or the endpoint is not the organisation's; "disabled" when the endpoint is.
 */
export async function queueResend(
  database: Database,
  orgId: string,
  endpointId: string,
  messageId: string,
): Promise<Date | "disabled" | null> {
  const [found] = await database.query<{ disabled: boolean }>(
    `select e.disabled from webhook_endpoints e join webhook_messages m on m.organization_id = e.organization_id
      where e.id = $1 and m.id = $2 and e.organization_id = $3`,
    [endpointId, messageId, orgId],
  );
  if (!found) return null;
  if (found.disabled) return "disabled";
  const [row] = await database.query<{ next_attempt_at: Date }>(
    `insert into webhook_deliveries (message_id, endpoint_id, attempts, chain_start, manual, next_attempt_at)
     select $2, $1, n, n, true, now()
       from (select coalesce(max(attempt), 0) as n from webhook_attempts where message_id = $2 and endpoint_id = $1) a
     on conflict (message_id, endpoint_id) do update
        set chain_start = webhook_deliveries.attempts, manual = true, next_attempt_at = now(), lease_until = null
     returning next_attempt_at`,
    [endpointId, messageId],
  );
  return row!.next_attempt_at;
}

/**
 * Records a test event for one endpoint of the organisation (its delivery goes through the outbox
 * like any event's, addressed to that endpoint only). Answers its id; null when the endpoint is not
 * the organisation's; "disabled" when it is disabled.
 */
export async function insertTestEvent(
  database: Database,
  orgId: string,
  endpointId: string,
  type: EventType,
  data: unknown,
): Promise<string | "disabled" | null> {
  const [found] = await database.query<{ disabled: boolean }>(
    "select disabled from webhook_endpoints where id = $1 and organization_id = $2",
    [endpointId, orgId],
  );
  if (!found) return null;
  if (found.disabled) return "disabled";
  const [row] = await database.query<{ id: string }>(
    `insert into webhook_messages (organization_id, type, data, test_endpoint_id) values ($1, $2, $3::json, $4) returning id`,
    [orgId, type, JSON.stringify(data), endpointId],
  );
  return row!.id;
}

/**
 * Queues again, due now, every delivery to the endpoint that failed (the schedule ran out without a
 * 2xx) of the events since `since`: a new chain of the schedule each, as a re-send. Answers how
 * many; null when the endpoint is not the organisation's; "disabled" when it is disabled. One
 * statement: the endpoint's attempts are read in its index (endpoint_id, message_id).
 */
export async function queueResendFailed(
  database: Database,
  orgId: string,
  endpointId: string,
  since: Date,
): Promise<number | "disabled" | null> {
  const [found] = await database.query<{ disabled: boolean }>(
    "select disabled from webhook_endpoints where id = $1 and organization_id = $2",
    [endpointId, orgId],
  );
  if (!found) return null;
  if (found.disabled) return "disabled";
  const [row] = await database.query<{ n: number }>(
    `with last as (
       select distinct on (a.message_id) a.message_id, a.attempt, a.ok
         from webhook_attempts a join webhook_messages m on m.id = a.message_id
        where a.endpoint_id = $1 and m.organization_id = $2 and m.created_at >= $3
        order by a.message_id, a.attempt desc),
     queued as (
       insert into webhook_deliveries (message_id, endpoint_id, attempts, chain_start, manual, next_attempt_at)
       select l.message_id, $1, l.attempt, l.attempt, true, now() from last l
        where not l.ok and not exists (select 1 from webhook_deliveries d where d.message_id = l.message_id and d.endpoint_id = $1)
       on conflict (message_id, endpoint_id) do nothing
       returning 1)
     select count(*)::int as n from queued`,
    [endpointId, orgId, since],
  );
  return row?.n ?? 0;
}
