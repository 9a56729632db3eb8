-- What a person reads of a write-back, kept as it was when the write-back was made: the candidate's
-- and the position's names, and the name of the upstream stage it moves the application to (as the
-- job's stages named it when the write-back resolved it), so the history keeps its names when the
-- candidate, the position or the stage is renamed or removed later.
alter table write_backs add column candidate_name text;
alter table write_backs add column position_name text;
alter table write_backs add column target_stage_name text;
update write_backs w set candidate_name = c.name from candidates c where c.id = w.candidate_id;
update write_backs w set position_name = p.name from positions p where p.id = w.position_id;
