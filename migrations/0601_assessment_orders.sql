-- The upstream's assessment channel (issue 40, docs/assessments.md): orders placed in an ATS for
-- one of an organisation's interview packages (its positions in state `template`).
--
-- One row per order, unique on (integration_id, order_id): the upstream's order id is unique
-- within the integration that sent it, and a webhook delivered three times finds the row its first
-- delivery wrote. The organisation is the integration's (resolved by Hirebridge, never taken from
-- the payload).
create table assessment_orders (
  id uuid primary key default gen_random_uuid(),
  integration_id text not null,
  order_id text not null,
  org_id uuid not null,
  -- The package ordered: a position id of the organisation (in state `template` when ordered).
  package_id text not null,
  -- The position the order's job became, and the candidate the order's candidate became.
  position_id uuid,
  candidate_id uuid,
  -- Ordered from the career page (`inline-assessment:order-received`): answered with the link.
  inline boolean not null default false,
  -- accepted: a candidate and interview exist; rejected: answered 422 with `message`.
  status text not null check (status in ('accepted', 'rejected')),
  -- What the order holds upstream: OPEN until the result is written (COMPLETED or CANCELLED).
  result_status text not null default 'OPEN' check (result_status in ('OPEN', 'COMPLETED', 'CANCELLED')),
  message text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (integration_id, order_id)
);
-- The organisation's listing, newest first (keyset on created_at, id).
create index assessment_orders_org_idx on assessment_orders (org_id, integration_id, created_at desc, id desc);

-- Whether an integration takes orders: integrations of category ASSESSMENT always do; any other
-- integration does when its organisation turns this on. Keyed on the integration (the proxy's
-- `integrations` row), kept by the assessment module beside it.
create table assessment_settings (
  integration_id text primary key,
  org_id uuid not null,
  takes_orders boolean not null default false,
  -- When the packages were last published to the integration (null: never).
  published_at timestamptz,
  updated_at timestamptz not null default now()
);
create index assessment_settings_org_idx on assessment_settings (org_id);

-- The candidate an order became carries the order (read-only in the API), and the unguessable token
-- of the recruiter's results page written back on the order as `result_url`.
alter table candidates add column upstream_assessment_order_id text;
alter table candidates add column results_token text;
create unique index candidates_results_token_key on candidates (results_token) where results_token is not null;

-- A write-back of an order's result goes to the order (PUT /assessment/orders/{id}/result), not to
-- the application's stage: the order's id, null for the stage-based write-back.
alter table write_backs add column assessment_order_id text;
