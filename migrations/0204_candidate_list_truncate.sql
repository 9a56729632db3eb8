-- TRUNCATE fires none of the INSERT, UPDATE or DELETE triggers of 0203: without this, an API
-- instance would keep answering a list it built before `truncate candidates` (an operator's reset,
-- a restore script). Every position's list changes, so every position gets a change row.
create function note_all_candidate_lists_changed() returns trigger language plpgsql as $$
begin
  insert into candidate_list_changes (position_id) select id from positions;
  return null;
end $$;

create trigger candidates_list_truncate after truncate on candidates
  for each statement execute function note_all_candidate_lists_changed();
