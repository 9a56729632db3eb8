import { takesEventType } from "../../contracts/webhooks-out/events.js";
import type { Database } from "../../shared/db/database.js";

/**
 * The dispatcher's statements (one round trip each, on the database, no transaction: each is
 * atomic on its own). Claims are leases (`lease_until`): an instance that dies leaves its claims
 * to expire, and another takes them over; SKIP LOCKED keeps instances from waiting on each other.
 */

/** A claimed event, with the endpoints to make its first attempt to. */
export type ClaimedMessage = {
  id: string;
  org: string;
  type: string;
  data: string;
  createdAt: Date;
  /** A test event: sent to its one endpoint only (migrations/0503). */
  test: boolean;
  endpoints: string[];
};

/**
 * Claims up to `limit` pending events, oldest first, with each one's subscribed, enabled endpoints.
 * An event claimed before (its instance died, or stopped, before it was done) leaves out the
 * endpoints that already have an attempt or a scheduled one: they were served. A test event goes to
 * the one endpoint it names (enabled), whatever that endpoint subscribes to.
 */
export async function claimMessages(database: Database, limit: number, leaseSeconds: number): Promise<ClaimedMessage[]> {
  const rows = await database.query<{
    id: string;
    org: string;
    type: string;
    data: string;
    created_at: Date;
    test: boolean;
    endpoints: string[];
  }>(
    `with picked as (
       select id from webhook_messages
        where pending and (lease_until is null or lease_until < now())
        order by id limit $1
        for update skip locked)
     update webhook_messages m set lease_until = now() + make_interval(secs => $2), claims = m.claims + 1
       from picked where m.id = picked.id
     returning m.id, m.organization_id as org, m.type, m.data::text as data, m.created_at, m.test_endpoint_id is not null as test,
       array(select e.id from webhook_endpoints e
              where e.organization_id = m.organization_id and not e.disabled
                and (case when m.test_endpoint_id is null then ${takesEventType("e.event_types", "m.type")}
                          else e.id = m.test_endpoint_id end)
                and (m.claims = 1
                     or not exists (select 1 from webhook_attempts a where a.message_id = m.id and a.endpoint_id = e.id)
                        and not exists (select 1 from webhook_deliveries d where d.message_id = m.id and d.endpoint_id = e.id))
              order by e.id)::text[] as endpoints`,
    [limit, leaseSeconds],
  );
  return rows.map((r) => ({
    id: r.id,
    org: r.org,
    type: r.type,
    data: r.data,
    createdAt: r.created_at,
    test: r.test,
    endpoints: r.endpoints,
  }));
}

/** A claimed retry (or re-send, or deferred first attempt). */
export type ClaimedDelivery = { messageId: string; endpointId: string; attempts: number; chainStart: number; manual: boolean };

/**
 * Claims due deliveries of enabled endpoints: at most `perEndpoint` of each endpoint, oldest due
 * first, `limit` in all, none of the endpoints in `busy` (this instance's lanes for them are full):
 * one endpoint's backlog never takes another's turn.
 */
export async function claimDeliveries(
  database: Database,
  opts: { limit: number; perEndpoint: number; busy: string[]; leaseSeconds: number },
): Promise<ClaimedDelivery[]> {
  const rows = await database.query<{ message_id: string; endpoint_id: string; attempts: number; chain_start: number; manual: boolean }>(
    `with due as (
       select distinct d.endpoint_id from webhook_deliveries d
        where d.next_attempt_at <= now() and (d.lease_until is null or d.lease_until < now())
          and d.endpoint_id <> all($3::uuid[])),
     picked as (
       select p.message_id, p.endpoint_id
         from due join webhook_endpoints e on e.id = due.endpoint_id and not e.disabled
         cross join lateral (
           select d.message_id, d.endpoint_id from webhook_deliveries d
            where d.endpoint_id = e.id and d.next_attempt_at <= now() and (d.lease_until is null or d.lease_until < now())
            order by d.next_attempt_at limit $2
            for update of d skip locked) p
        limit $1)
     update webhook_deliveries d set lease_until = now() + make_interval(secs => $4)
       from picked where d.message_id = picked.message_id and d.endpoint_id = picked.endpoint_id
     returning d.message_id, d.endpoint_id, d.attempts, d.chain_start, d.manual`,
    [opts.limit, opts.perEndpoint, opts.busy, opts.leaseSeconds],
  );
  return rows.map((r) => ({
    messageId: r.message_id,
    endpointId: r.endpoint_id,
    attempts: r.attempts,
    chainStart: r.chain_start,
    manual: r.manual,
  }));
}

export async function loadMessages(database: Database, ids: string[]): Promise<Omit<ClaimedMessage, "endpoints">[]> {
  if (ids.length === 0) return [];
  const rows = await database.query<{ id: string; org: string; type: string; data: string; created_at: Date; test: boolean }>(
    `select id, organization_id as org, type, data::text as data, created_at, test_endpoint_id is not null as test
       from webhook_messages where id = any($1::uuid[])`,
    [ids],
  );
  return rows.map((r) => ({ id: r.id, org: r.org, type: r.type, data: r.data, createdAt: r.created_at, test: r.test }));
}

/** An endpoint as deliveries need it: where, and the secrets that sign (the previous one while it overlaps). */
export type DeliveryEndpoint = { id: string; url: string; secrets: string[] };

export async function loadEndpoints(database: Database, ids: string[]): Promise<Map<string, DeliveryEndpoint>> {
  if (ids.length === 0) return new Map();
  const rows = await database.query<{ id: string; url: string; secret: string; previous: string | null }>(
    `select id, url, secret, case when previous_secret_expires_at > now() then previous_secret end as previous
       from webhook_endpoints where id = any($1::uuid[]) and not disabled`,
    [ids],
  );
  return new Map(rows.map((r) => [r.id, { id: r.id, url: r.url, secrets: r.previous ? [r.secret, r.previous] : [r.secret] }]));
}

/** One attempt's record (or a deferral: no attempt made, the delivery queued for the retry loop). */
export type ResultRow = {
  m: string;
  e: string;
  /** The attempt's number; for a deferral, the attempts made so far. */
  n: number;
  at: string | null;
  s: number | null;
  ok: boolean;
  ms: number;
  err: string | null;
  body: string | null;
  manual: boolean;
  /** When the next attempt is due (a failure with schedule left, or a deferral); null: the delivery is over. */
  next: string | null;
  chain: number;
  /** The delivery came from the retry queue (its row goes when it is over). */
  queued: boolean;
  deferred: boolean;
  /** The headers the attempt was sent with; null for a deferral. */
  h: Record<string, string> | null;
};

/** How an endpoint fared in a batch of results. */
export type HealthRow = { e: string; recovered: boolean; failing_from: string | null; gone: boolean; last: string };

/**
 * Records a batch of results in one statement: the attempts, the retries they schedule (upserted
 * into the queue), the deliveries that are over (out of the queue), the events now done (`done`),
 * and each endpoint's failure streak: cleared by a success, started by a first failure, and the
 * endpoint disabled once it has lasted `disableAfterSeconds` or the endpoint answered 410 Gone. An
 * endpoint whose streak does not change is not written. Answers the endpoints it disabled.
 */
export async function recordResults(
  database: Database,
  batch: { results: ResultRow[]; done: string[]; health: HealthRow[]; disableAfterSeconds: number },
): Promise<string[]> {
  const rows = await database.query<{ id: string; disable: boolean }>(
    `with r as (
       select * from json_to_recordset($1::json) as r(m uuid, e uuid, n int, at timestamptz, s int, ok boolean, ms int, err text,
         body text, manual boolean, next timestamptz, chain int, queued boolean, deferred boolean, h json)),
     att as (
       -- Numbered on from the attempts recorded (an attempt may have been made while an earlier
       -- one's record was still on its way: a re-send, or two instances after a lease ran out).
       insert into webhook_attempts (message_id, endpoint_id, attempt, attempted_at, status_code, ok, latency_ms, error, response, manual,
                                     request_headers)
       select m, e, coalesce((select max(a.attempt) from webhook_attempts a where a.message_id = r.m and a.endpoint_id = r.e), 0)
                    + row_number() over (partition by m, e order by at),
              at, s, ok, ms, err, body, manual, h
         from r where not deferred
       on conflict do nothing),
     sched as (
       insert into webhook_deliveries (message_id, endpoint_id, attempts, chain_start, manual, next_attempt_at)
       select m, e, n, chain, false, next from r where next is not null
       on conflict (message_id, endpoint_id) do update
          set attempts = excluded.attempts, chain_start = excluded.chain_start, manual = false,
              next_attempt_at = excluded.next_attempt_at, lease_until = null),
     fin as (
       delete from webhook_deliveries d using r
        where r.next is null and r.queued and d.message_id = r.m and d.endpoint_id = r.e),
     done as (
       update webhook_messages set pending = false, lease_until = null where id = any($2::uuid[])),
     h as (
       select h.*, case when h.recovered then h.failing_from else coalesce(w.failing_since, h.failing_from) end as since,
              w.failing_since as was, w.disabled as was_disabled
         from json_to_recordset($3::json) as h(e uuid, recovered boolean, failing_from timestamptz, gone boolean, last text)
         join webhook_endpoints w on w.id = h.e),
     x as (
       select h.*, not h.was_disabled and (h.gone or coalesce(h.since < now() - make_interval(secs => $4), false)) as disable from h)
     update webhook_endpoints w
        set failing_since = x.since,
            disabled = w.disabled or x.disable,
            disabled_reason = case when not x.disable then w.disabled_reason
                                   when x.gone then 'The endpoint answered 410 Gone: it asked for no more deliveries'
                                   else 'Every delivery attempt failed since ' || to_char(x.since at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
                                        || ' (the last: ' || x.last || ')' end,
            updated_at = case when x.disable then now() else w.updated_at end
       from x
      where w.id = x.e and (x.since is distinct from x.was or x.disable)
     returning w.id, x.disable`,
    [JSON.stringify(batch.results), batch.done, JSON.stringify(batch.health), batch.disableAfterSeconds],
  );
  return rows.filter((r) => r.disable).map((r) => r.id);
}

/** Gives back claims this instance will not finish (it is stopping): another instance takes them at once. */
export async function releaseClaims(database: Database, messages: string[]): Promise<void> {
  if (messages.length === 0) return;
  await database.query("update webhook_messages set lease_until = null where id = any($1::uuid[]) and pending", [messages]);
}

/** When the earliest delivery of an enabled endpoint is due (for the retry loop's timer). */
export async function nextDueAt(database: Database): Promise<Date | null> {
  const [row] = await database.query<{ at: Date | null }>(
    `select min(d.next_attempt_at) as at from webhook_deliveries d
       join webhook_endpoints e on e.id = d.endpoint_id and not e.disabled`,
  );
  return row?.at ?? null;
}

/**
 * Forgets what is older than the retention: attempts, and events no longer pending nor waiting
 * for a retry. At most `limit` rows of each per call (the caller repeats while it deletes).
 */
export async function deleteExpired(database: Database, retentionDays: number, limit: number): Promise<number> {
  const [attempts] = await database.query<{ n: number }>(
    `with gone as (delete from webhook_attempts where ctid in (
        select ctid from webhook_attempts where attempted_at < now() - make_interval(days => $1) limit $2) returning 1)
     select count(*)::int as n from gone`,
    [retentionDays, limit],
  );
  const [messages] = await database.query<{ n: number }>(
    `with gone as (delete from webhook_messages m where m.id in (
        select id from webhook_messages where not pending and created_at < now() - make_interval(days => $1)
           and not exists (select 1 from webhook_deliveries d where d.message_id = webhook_messages.id) limit $2) returning 1)
     select count(*)::int as n from gone`,
    [retentionDays, limit],
  );
  return (attempts?.n ?? 0) + (messages?.n ?? 0);
}
