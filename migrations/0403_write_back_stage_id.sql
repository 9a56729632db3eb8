-- The upstream stage id a write-back resolved its target stage to, so a retry does not look it up again.
alter table write_backs add column target_stage_id text;
