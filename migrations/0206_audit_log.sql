-- The audit log (services/audit, docs/privacy.md "Audit log"): one row per change made through the
-- APIs, console and CLI, append-only and chained per organisation. Each row carries
-- hash = sha256(prev_hash || canonical entry), computed by services/audit/chain.ts; prev_hash is
-- stored so the chain verifies from the oldest row kept after a retention purge. No personal data:
-- ids, the actor and numbers only.
create table audit_log (
  organization_id uuid not null,
  -- Position in the organisation's chain: 1, 2, 3... (no gaps, except the purged prefix).
  seq bigint not null,
  id uuid not null,
  occurred_at timestamptz not null,
  actor_sub text not null,
  actor_client text,
  action text not null,
  resource_type text not null,
  resource_ids text[] not null default '{}',
  request_id text,
  source_address text,
  score_before double precision,
  score_after double precision,
  details jsonb not null default '{}',
  prev_hash text not null,
  hash text not null,
  primary key (organization_id, seq)
);
-- The retention purge looks for the oldest rows of every organisation.
create index audit_log_occurred_idx on audit_log (occurred_at);

-- Each organisation's chain head: appends lock this row (one writer at a time per organisation)
-- and read the last seq and hash from it; `purged_through` is the last seq the retention removed,
-- so a verification knows where the kept chain must start and a removed newest row is noticed.
create table audit_log_heads (
  organization_id uuid primary key,
  seq bigint not null default 0,
  hash text not null default '',
  purged_through bigint not null default 0
);
