-- Deliveries you can inspect (issue 42, docs/webhooks-out.md): the headers each attempt was sent
-- with, test events addressed to one endpoint, and temporary endpoints that expire when idle.

-- The headers of the attempt as sent (webhook-id, webhook-timestamp, webhook-signature, …); null
-- for attempts recorded before this column.
alter table webhook_attempts add column request_headers json;

-- A test event (POST …/webhook-endpoints/{id}/test): an example of its type, delivered to this one
-- endpoint only, whatever the endpoint subscribes to; null for every real event (fanned out).
alter table webhook_messages add column test_endpoint_id uuid;

-- A temporary endpoint (`hirebridge webhooks listen`): deleted by the sweep job once this time has
-- passed; each keep-alive moves it on. Null for an endpoint that stays.
alter table webhook_endpoints add column expires_at timestamptz;
create index webhook_endpoints_expires_idx on webhook_endpoints (expires_at) where expires_at is not null;
