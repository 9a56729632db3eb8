-- Indexes for how the dispatcher and the deliveries API read (0501's guesses, replaced before any
-- release): the retry queue is claimed per endpoint, oldest due first (so one endpoint's backlog
-- never fills another's turn), and an endpoint's deliveries are listed newest event first.
drop index webhook_deliveries_endpoint_idx;
create index webhook_deliveries_endpoint_due_idx on webhook_deliveries (endpoint_id, next_attempt_at);
drop index webhook_attempts_endpoint_idx;
create index webhook_attempts_endpoint_idx on webhook_attempts (endpoint_id, message_id);
