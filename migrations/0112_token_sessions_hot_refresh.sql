-- Token service: every refresh rewrites its session's row (refresh_jti, previous_jti, last_refresh_at,
-- refresh_count). The index on last_refresh_at made each of those updates a non-HOT one: a new
-- entry in all three indexes besides the new row version, all of it WAL. It served no query: the
-- periodic purge ORs three conditions and is a sequential scan with or without it (EXPLAIN), and a
-- refresh finds its session by primary key. Without it no indexed column changes on a refresh, and
-- with a tenth of each page kept free the new row version fits beside the old one (a HOT update).
drop index if exists token_sessions_last_refresh_idx;
alter table token_sessions set (fillfactor = 90);
