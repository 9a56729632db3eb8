-- Recruiting API: positions, their candidates, and one interview record per candidate.
-- Column sizes mirror the field tables of spec/recruiting-api-and-tokens.md, so the database refuses
-- what the API refuses. organization_id is the caller's org_id claim (the token service owns orgs).

create table positions (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null,
  name varchar(100) not null check (char_length(name) >= 1),
  state text not null default 'draft' check (state in ('active', 'draft', 'inactive', 'template')),
  department varchar(100),
  location varchar(100),
  min_score integer,
  role_description varchar(500),
  position_calender_link varchar(500),
  accepted_languages text[] not null default '{}',
  agent_id varchar(255) check (agent_id is null or char_length(agent_id) >= 1),
  candidate_stage varchar(200),
  passed_stage varchar(200),
  rejected_stage varchar(200),
  needs_reviewed_stage varchar(200),
  auto_update_stages boolean not null default false,
  upstream_job_id_id varchar(100),
  upstream_integration_id varchar(100),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
-- The list answers in (created_at, id) order and pages on it.
create index positions_org_created_idx on positions (organization_id, created_at, id);
-- The sync engine upserts jobs on this key (nulls are distinct: unlinked positions never collide).
create unique index positions_upstream_job_key
  on positions (organization_id, upstream_integration_id, upstream_job_id_id);

create table candidates (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null,
  position_id uuid not null references positions (id) on delete cascade,
  name varchar(200) not null check (char_length(name) >= 1),
  email varchar(200) not null check (char_length(email) >= 1),
  phone varchar(200) not null check (char_length(phone) >= 1),
  language varchar(200) not null check (char_length(language) >= 1),
  state text not null default 'new'
    check (state in ('new', 'invited', 'interviewing', 'interviewed', 'passed', 'rejected', 'needs_review', 'withdrawn')),
  score integer,
  feedback text,
  hired boolean not null default false,
  invited_at timestamptz,
  completed_at timestamptz,
  upstream_application_id varchar(100),
  short_listed boolean not null default false,
  tags text[] not null default '{}',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
-- One email once per position; emails compare case-insensitively.
create unique index candidates_position_email_key on candidates (position_id, lower(email));
-- The sync engine upserts applications on this key.
create unique index candidates_upstream_application_key on candidates (position_id, upstream_application_id);
create index candidates_position_created_idx on candidates (position_id, created_at, id);

create table interviews (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null,
  candidate_id uuid not null references candidates (id) on delete cascade,
  status text not null default 'not_started'
    check (status in ('not_started', 'errored', 'cancelled', 'completed', 'graded')),
  conversation_id varchar(100),
  transcript_link varchar(350),
  recording_link varchar(350),
  start_time timestamptz,
  end_time timestamptz,
  graded_at timestamptz,
  last_attempted_at timestamptz,
  ip_address text,
  location varchar(200),
  interview_link varchar(200),
  score integer,
  feedback text,
  interview_transcript varchar(20000),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index interviews_candidate_key on interviews (candidate_id);
create unique index interviews_link_key on interviews (interview_link);
