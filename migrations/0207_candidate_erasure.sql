-- Candidate erasure (issue 41, services/recruiting/erasure, docs/privacy.md "Erasure"): what stays
-- of an erased candidate is a tombstone of ids (candidate, position, organisation, upstream
-- application), when, who asked (the token's sub and client) and why; no name, email or phone.
create table candidate_erasures (
  candidate_id uuid primary key,
  organization_id uuid not null,
  position_id uuid not null,
  upstream_application_id varchar(100),
  erased_at timestamptz not null default now(),
  actor_sub text not null,
  actor_client text,
  reason varchar(500)
);
create index candidate_erasures_org_idx on candidate_erasures (organization_id, erased_at desc);

-- Erased stays erased: the sync creates no candidate from an application suppressed here, matched
-- on the upstream application id or on the HMAC (ERASURE_SUPPRESSION_SECRET) of the lower-cased
-- email. Keyed without personal data. The organisation lifts one with DELETE …/erasure-suppressions/{id}.
create table erasure_suppressions (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null,
  candidate_id uuid not null,
  upstream_application_id varchar(100),
  -- Null for a retention erasure: only the application is suppressed, a new application of the person is not.
  email_hmac text,
  created_at timestamptz not null default now()
);
create index erasure_suppressions_org_app_idx on erasure_suppressions (organization_id, upstream_application_id);
create index erasure_suppressions_org_email_idx on erasure_suppressions (organization_id, email_hmac);
