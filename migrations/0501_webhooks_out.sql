-- Outbound webhooks (services/webhooks-out, docs/webhooks-out.md): an organisation's endpoints, the
-- outbox of events recorded in the same transaction as the change that causes them, every delivery
-- attempt, and the deliveries waiting for their next attempt.

-- Version 7 uuids (time-ordered, as src/shared/db/uuid7.ts makes them in JS): events are written in
-- bulk by the sync (a page of candidates is a page of events), and random ids would land on random
-- pages of the primary key's index. Their order is also the outbox's order.
create function webhook_uuid7() returns uuid language sql volatile as $$
  select encode(
    set_bit(set_bit(overlay(uuid_send(gen_random_uuid())
                            placing substring(int8send((extract(epoch from clock_timestamp()) * 1000)::bigint) from 3)
                            from 1 for 6), 52, 1), 53, 1), 'hex')::uuid
$$;

create table webhook_endpoints (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null,
  url text not null,
  description text not null default '',
  -- The event types delivered; empty = all of them.
  event_types text[] not null default '{}',
  disabled boolean not null default false,
  -- Why it is disabled, when Hirebridge disabled it (sustained failure, 410 Gone); null when a person did.
  disabled_reason text,
  -- whsec_<base64>: the signing secret (Standard Webhooks), and the one before a rotation, which
  -- still signs every delivery until previous_secret_expires_at.
  secret text not null,
  previous_secret text,
  previous_secret_expires_at timestamptz,
  -- Since when every attempt failed (null: the last attempt succeeded); disabled after the configured time.
  failing_since timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index webhook_endpoints_org_idx on webhook_endpoints (organization_id, created_at, id);
-- The probe every recorded change makes (is any enabled endpoint of this org subscribed?): for an
-- org with no endpoint it finds nothing in this small index and reads no table page.
create index webhook_endpoints_enabled_idx on webhook_endpoints (organization_id) where not disabled;

-- The outbox: one row per event (not per endpoint). `pending` until the dispatcher has made every
-- subscribed endpoint's first attempt (or scheduled it in webhook_deliveries); `lease_until` is the
-- claim of the instance dispatching it, after which another instance takes it over.
create table webhook_messages (
  id uuid primary key default webhook_uuid7(),
  organization_id uuid not null,
  type text not null,
  data json not null,
  created_at timestamptz not null default now(),
  pending boolean not null default true,
  lease_until timestamptz,
  claims integer not null default 0
);
create index webhook_messages_pending_idx on webhook_messages (id) where pending;

-- Every attempt at delivering a message to an endpoint, numbered per (message, endpoint).
create table webhook_attempts (
  message_id uuid not null,
  endpoint_id uuid not null,
  attempt integer not null,
  attempted_at timestamptz not null,
  -- The HTTP status; null when no answer came (timeout, connection refused, address refused).
  status_code integer,
  ok boolean not null,
  latency_ms integer not null,
  error text,
  -- The first bytes of the answer's body.
  response text,
  -- Whether a person asked for it (re-send) rather than the schedule.
  manual boolean not null default false,
  primary key (message_id, endpoint_id, attempt)
);
create index webhook_attempts_endpoint_idx on webhook_attempts (endpoint_id, attempted_at desc);

-- Deliveries with a next attempt to make (a failed attempt's retry, a re-send, or a first attempt
-- the dispatcher deferred because the endpoint was busy): the retry queue. A delivery that
-- succeeds or exhausts its schedule leaves it; its attempts stay.
create table webhook_deliveries (
  message_id uuid not null,
  endpoint_id uuid not null,
  -- Attempts made so far (the last attempt's number), and how many of them came before this
  -- chain of the schedule began (a re-send starts a new chain).
  attempts integer not null,
  chain_start integer not null default 0,
  manual boolean not null default false,
  next_attempt_at timestamptz not null,
  lease_until timestamptz,
  primary key (message_id, endpoint_id)
);
create index webhook_deliveries_due_idx on webhook_deliveries (next_attempt_at);
create index webhook_deliveries_endpoint_idx on webhook_deliveries (endpoint_id);
