-- Webhook events, stored before the 200 answer and deduplicated on the upstream's event id.
create table webhook_events (
  id text primary key,
  type text not null,
  integration_id text,
  org_id uuid,
  payload jsonb not null,
  -- queued: stored, work pending in the job queue; processed: work done; failed: retries exhausted;
  -- ignored: authentic but nothing to do (e.g. a sync-finished whose upstream sync failed).
  status text not null default 'queued' check (status in ('queued', 'processed', 'failed', 'ignored')),
  message text,
  attempts integer not null default 0,
  last_error text,
  received_at timestamptz not null default now(),
  processed_at timestamptz
);
create index webhook_events_integration_idx on webhook_events (integration_id, received_at desc);
create index webhook_events_pending_idx on webhook_events (received_at) where status = 'queued';

-- One row per sync of one model of one integration; the page cursor makes a crashed run resumable.
create table sync_runs (
  id uuid primary key default gen_random_uuid(),
  integration_id text not null,
  org_id uuid not null,
  model text not null check (model in ('jobs', 'applications')),
  type text not null check (type in ('FULL', 'DELTA')),
  trigger text not null,
  state text not null default 'queued' check (state in ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
  created_count integer not null default 0,
  updated_count integer not null default 0,
  unlinked_count integer not null default 0,
  skipped_count integer not null default 0,
  failed_count integer not null default 0,
  pages integer not null default 0,
  page_cursor text,
  updated_after timestamptz,
  started_at timestamptz,
  finished_at timestamptz,
  last_error text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index sync_runs_integration_idx on sync_runs (integration_id, created_at desc);
create index sync_runs_active_idx on sync_runs (integration_id, model) where state in ('queued', 'running');

-- Incremental checkpoints: the next delta sync reads records updated after `synced_until`.
create table sync_checkpoints (
  integration_id text not null,
  model text not null,
  synced_until timestamptz not null,
  updated_at timestamptz not null default now(),
  primary key (integration_id, model)
);

-- Interview results written back to the ATS; each step is recorded so a retried job never repeats it.
create table write_backs (
  id uuid primary key default gen_random_uuid(),
  event_key text not null unique,
  org_id uuid not null,
  integration_id text not null,
  application_id text not null,
  position_id uuid not null,
  candidate_id uuid not null,
  interview_id uuid not null,
  outcome text not null check (outcome in ('passed', 'rejected', 'needs_review')),
  target_stage text,
  state text not null default 'pending' check (state in ('pending', 'done', 'failed', 'paused')),
  stage_moved_at timestamptz,
  link_added_at timestamptz,
  note_added_at timestamptz,
  attempts integer not null default 0,
  last_error text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index write_backs_integration_idx on write_backs (integration_id, created_at desc);
