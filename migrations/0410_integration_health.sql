-- Each integration's last known health (ok, degraded, broken) and why, as computed from what
-- Hirebridge records (the integration's state upstream, its sync runs, write-backs and webhook
-- events): the state a change is detected against (services/sync/health/health-monitor.ts).
create table integration_health (
  integration_id text primary key,
  org_id uuid not null,
  state text not null default 'ok' check (state in ('ok', 'degraded', 'broken')),
  reason text,
  changed_at timestamptz not null default now()
);
-- The failures health counts, found without reading an integration's whole history.
create index write_backs_failed_idx on write_backs (integration_id, updated_at) where state = 'failed';
create index webhook_events_failed_idx on webhook_events (integration_id, processed_at) where status = 'failed';
