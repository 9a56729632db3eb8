-- Idempotency-Key of POST position and POST candidate (draft-ietf-httpapi-idempotency-key-header):
-- the first answer of each key, per organisation and caller (the token's subject), written in the
-- same transaction as the record it created, so a create and its key commit or vanish together.
-- Rows older than the retention (24 h) are ignored and deleted (docs/recruiting-api.md).
create table idempotency_keys (
  organization_id uuid not null,
  caller text not null,
  key text not null,
  -- sha256 of the method, the path and the body (its JSON with keys sorted): "the same request".
  fingerprint text not null,
  status integer not null,
  response text not null,
  created_at timestamptz not null default now(),
  primary key (organization_id, caller, key)
);

create index idempotency_keys_created_at on idempotency_keys (created_at);
