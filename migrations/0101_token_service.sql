-- Token service (embedded Keycloak-compatible identity provider): users, brute-force counters,
-- sessions (one refresh-token family each) and signing keys. Times come from the service's clock,
-- never from now(), so tests can move time.

create table token_users (
  id uuid primary key default gen_random_uuid(),
  realm text not null,
  -- Keycloak stores usernames lower-cased; so do we, and look them up the same way.
  username text not null,
  email text,
  email_verified boolean not null default false,
  first_name text,
  last_name text,
  enabled boolean not null default true,
  -- Keycloak attributes: {"name": ["value", ...]}; org_id's first value becomes the org_id claim.
  attributes jsonb not null default '{}'::jsonb,
  -- scrypt$N$r$p$salt$hash (base64url); null until a password is set.
  password_hash text,
  -- A temporary password (reset with temporary=true) must be changed before a direct grant works.
  password_temporary boolean not null default false,
  created_at timestamptz not null,
  constraint token_users_realm_username_key unique (realm, username)
);
-- Keycloak's default (duplicate emails not allowed), enforced race-free.
create unique index token_users_realm_email_key on token_users (realm, lower(email)) where email is not null;

create table token_login_failures (
  user_id uuid primary key references token_users (id) on delete cascade,
  failures integer not null default 0,
  last_failure_at timestamptz not null,
  locked_until timestamptz
);

create table token_sessions (
  id uuid primary key,
  realm text not null,
  user_id uuid not null references token_users (id) on delete cascade,
  client_id text not null,
  scope text not null,
  started_at timestamptz not null,
  last_refresh_at timestamptz not null,
  -- The one refresh token (its jti) that may be used next, and the one it replaced. A refresh is a
  -- compare-and-set on refresh_jti, so of two concurrent refreshes of one token exactly one wins.
  refresh_jti uuid not null,
  previous_jti uuid,
  refresh_count integer not null default 0,
  ended_at timestamptz,
  -- logout | admin_logout | reuse
  ended_reason text
);
create index token_sessions_user_idx on token_sessions (user_id);
create index token_sessions_last_refresh_idx on token_sessions (last_refresh_at);

create table token_signing_keys (
  kid text primary key,
  alg text not null,
  -- The private key as a JWK (it includes the public part); only the public part is published.
  private_jwk jsonb not null,
  public_jwk jsonb not null,
  created_at timestamptz not null,
  -- Set when a newer key takes over; the key stays in the JWKS until every token it signed expired.
  retired_at timestamptz,
  publish_until timestamptz
);
create index token_signing_keys_created_idx on token_signing_keys (created_at);
