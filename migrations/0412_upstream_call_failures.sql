-- Upstream calls that failed (5xx after retries, timeouts, unreachable, refused key; in the sync
-- and the write-back also 4xx and 429), for an integration's activity trail. Only failures are
-- written, never a successful call; the same call failing again within a few seconds adds to
-- `count` instead of a row (services/sync/activity/upstream-failures.ts).
create table upstream_call_failures (
  id uuid primary key default gen_random_uuid(),
  integration_id text not null,
  org_id uuid not null,
  -- proxy: a caller's request through the proxy; sync: the sync engine; write-back: a write-back job.
  source text not null check (source in ('proxy', 'sync', 'write-back')),
  -- The call without ids, e.g. `GET /ats/jobs` or `POST /ats/applications/{id}/notes`.
  operation text not null,
  -- The upstream's HTTP status; null when it never answered (timeout, connection).
  upstream_status integer,
  error text not null,
  request_id text,
  write_back_id uuid,
  count integer not null default 1,
  created_at timestamptz not null default now(),
  last_at timestamptz not null default now()
);
create index upstream_call_failures_integration_idx on upstream_call_failures (integration_id, created_at desc);
