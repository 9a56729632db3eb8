-- Token service: browser SSO sessions (Keycloak's user session behind its KEYCLOAK_IDENTITY cookie).
-- A sign-in through the login page starts one and sets an HttpOnly cookie holding a random secret;
-- only the secret's SHA-256 is stored, so a database read hands out no usable cookie. While it is
-- live, the authorization endpoint answers a page's request (`prompt=none` included) with a code at
-- once, without the login page. The token sessions those codes start name it (sso_session_id), so
-- that a logout of any of them ends it and its siblings, and their refreshes keep it from going idle.
create table token_sso_sessions (
  id uuid primary key,
  realm text not null,
  user_id uuid not null references token_users (id) on delete cascade,
  cookie_hash text not null unique,
  started_at timestamptz not null,
  last_used_at timestamptz not null,
  ended_at timestamptz,
  ended_reason text
);
create index token_sso_sessions_user_idx on token_sso_sessions (user_id) where ended_at is null;

-- A refresh never changes sso_session_id, so its index leaves refreshes HOT updates (0112).
alter table token_sessions add column sso_session_id uuid;
create index token_sessions_sso_session_idx on token_sessions (sso_session_id) where sso_session_id is not null;

alter table token_authorization_codes add column sso_session_id uuid;
