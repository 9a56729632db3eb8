-- Token service: authorization codes of the browser sign-in (authorization code + PKCE). A code is
-- stored only as its SHA-256, lives a minute (Keycloak's default) and is spent by a compare-and-set
-- on used_at, so of two exchanges of one code exactly one wins; the session the winner started is
-- remembered so that a replay can end it, as Keycloak does.
create table token_authorization_codes (
  code_hash text primary key,
  realm text not null,
  client_id text not null,
  user_id uuid not null references token_users (id) on delete cascade,
  redirect_uri text not null,
  code_challenge text not null,
  scope text not null,
  nonce text,
  auth_time timestamptz not null,
  expires_at timestamptz not null,
  used_at timestamptz,
  session_id uuid
);
create index token_authorization_codes_expires_idx on token_authorization_codes (expires_at);
