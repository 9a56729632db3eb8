-- Token service: the HMAC keys that sign refresh tokens (HS512, as Keycloak signs its refresh tokens
-- with the realm's generated HMAC key). A refresh token is only ever read back by the token service,
-- so a shared secret does, and it costs microseconds where an RSA signature costs a quarter of a
-- millisecond. The secret lives here as the RSA keys live in token_signing_keys: in the database,
-- so restarts and every instance use the same one. It is never published. A table of its own, not
-- rows in token_signing_keys: instances of the previous release read every row of that table as an
-- RSA key to publish and sign with, and they still run during a rolling deploy.
create table token_refresh_token_keys (
  kid text primary key,
  alg text not null,
  -- The secret as a JWK (kty "oct").
  secret_jwk jsonb not null,
  created_at timestamptz not null,
  -- Set when a newer key takes over; the key keeps verifying until every token it signed expired.
  retired_at timestamptz,
  verify_until timestamptz
);
create index token_refresh_token_keys_created_idx on token_refresh_token_keys (created_at);
