-- Data retention (services/retention, docs/privacy.md "Retention"): each organisation's policy
-- (a row only once it was set; an organisation without one has the defaults: candidates kept,
-- a deleted integration's and deleted applications' data erased after 14 days) and one row per
-- run of the scheduled retention job (what it erased and purged, by kind). No personal data.
create table data_retention_policies (
  organization_id uuid primary key,
  candidate_days_after_last_change integer check (candidate_days_after_last_change between 0 and 3650),
  candidate_days_after_rejection integer check (candidate_days_after_rejection between 0 and 3650),
  candidate_days_after_hire integer check (candidate_days_after_hire between 0 and 3650),
  deleted_integration_days integer not null default 14 check (deleted_integration_days between 0 and 3650),
  deleted_application_days integer not null default 14 check (deleted_application_days between 0 and 3650),
  updated_at timestamptz not null default now()
);

create table retention_runs (
  id uuid primary key default gen_random_uuid(),
  started_at timestamptz not null,
  finished_at timestamptz,
  -- {"candidates": n, "webhook_events": n, ...}: rows erased or purged, by kind.
  counts jsonb not null default '{}',
  -- Whether a kind stopped at its bound this run (the rest is left for the next run).
  truncated boolean not null default false,
  error text
);
create index retention_runs_started_idx on retention_runs (started_at desc);
