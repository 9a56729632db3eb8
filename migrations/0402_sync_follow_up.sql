-- The models to sync after a run succeeds (a sync of jobs then applications is two chained runs).
alter table sync_runs add column follow_up text[] not null default '{}';
