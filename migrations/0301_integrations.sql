-- Upstream integrations and the organisation each belongs to: the proxy's tenancy record.
-- `id` is the upstream's integration id (`<tool>:<id>`). An integration is recorded when Hirebridge
-- learns of it (integration-created webhook, the connect activation exchange, or adoption from the
-- upstream's end_user.origin_id) and never changes organisation. Deletion is soft: a deleted
-- integration stays deleted even if an out-of-order integration-created event arrives later.
create table integrations (
  id text primary key,
  org_id uuid not null,
  tool text not null,
  category text,
  status text,
  setup_status text,
  qa_status text,
  -- When the upstream last reported the state fields above; older reports are ignored.
  state_changed_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz
);
create index integrations_org_idx on integrations (org_id) where deleted_at is null;
