-- Token service: service accounts (issue 42), an organisation's confidential clients for machines,
-- as Keycloak's clients with "Service accounts roles" on. A machine sends client_id and
-- client_secret to the token endpoint (grant_type=client_credentials) and gets an access token
-- carrying the organisation, the APIs' audience and the account's scopes; sub is the account's id.
-- Only the secret's argon2id hash is stored (password-hash.ts): the secret is shown once, at
-- creation and at each rotation. A revoked account keeps its row (revoked_at) so its name and id
-- stay readable in the list; it gets no token any more.
create table token_service_accounts (
  id uuid primary key,
  realm text not null,
  org_id uuid not null,
  client_id text not null unique,
  name text not null,
  -- Restrictions: 'read' (safe methods only), 'recruiting' (the recruiting API only); empty: none.
  scopes text[] not null default '{}',
  secret_hash text not null,
  created_at timestamptz not null,
  -- Whose token created it (the person's sub), for the record.
  created_by text not null,
  secret_rotated_at timestamptz,
  last_used_at timestamptz,
  revoked_at timestamptz
);
create index token_service_accounts_org_idx on token_service_accounts (org_id, created_at);
