-- A version of each position's candidate list that every committed change of its candidates
-- raises, so an API instance may answer the list from the JSON it built before as long as the
-- version it reads in the database is the one it built it at (services/recruiting/candidates/
-- candidate-list-cache.ts). Every write path (the API, the sync engine, write-backs, an operator's
-- SQL) goes through these triggers, whichever process or instance makes it.
--
-- The version is `positions.candidate_list_base` plus the number of rows of
-- `candidate_list_changes` for the position. A write only inserts a row: concurrent writers of one
-- position never wait on each other (a counter on the position row would serialise their commits,
-- each with its WAL flush). A row is visible once its transaction commits, so the count grows with
-- every committed change and with nothing else; `fold_candidate_list_changes` moves counted rows
-- into the base in one statement, which keeps the total and keeps the count cheap.
--
-- A later migration that changes candidates' listed values without DML (an ALTER TABLE ... TYPE
-- ... USING rewrite) fires no trigger: it must insert a change row for every position itself.

alter table positions add column candidate_list_base bigint not null default 0;

create table candidate_list_changes (
  position_id uuid not null
);
create index candidate_list_changes_position_idx on candidate_list_changes (position_id);

create function note_candidate_list_change() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into candidate_list_changes (position_id) select distinct position_id from new_rows;
  elsif tg_op = 'DELETE' then
    insert into candidate_list_changes (position_id) select distinct position_id from old_rows;
  else
    insert into candidate_list_changes (position_id)
      select position_id from new_rows union select position_id from old_rows;
  end if;
  return null;
end $$;

-- One row per position per statement (a bulk update of 1,000 candidates adds one row).
create trigger candidates_list_insert after insert on candidates
  referencing new table as new_rows for each statement execute function note_candidate_list_change();
create trigger candidates_list_update after update on candidates
  referencing old table as old_rows new table as new_rows for each statement execute function note_candidate_list_change();
create trigger candidates_list_delete after delete on candidates
  referencing old table as old_rows for each statement execute function note_candidate_list_change();

-- Moves the position's committed change rows into its base. Safe concurrently with writers (their
-- uncommitted rows are not deleted and count later) and with another fold (a row is deleted once;
-- the base update re-reads the latest row). Answers the new base, or nothing for no position.
create function fold_candidate_list_changes(p_position uuid) returns bigint language sql as $$
  with folded as (delete from candidate_list_changes where position_id = p_position returning 1)
  update positions set candidate_list_base = candidate_list_base + (select count(*) from folded)
   where id = p_position
  returning candidate_list_base
$$;

-- The same for every position, for the positions that are written but not listed (their rows would
-- otherwise pile up) and for positions deleted since (their rows just go). One instance at a time
-- (the others skip); answers the number of rows moved.
create function fold_all_candidate_list_changes() returns bigint language plpgsql as $$
declare
  moved bigint;
begin
  if not pg_try_advisory_xact_lock(72100418) then
    return 0;
  end if;
  with folded as (delete from candidate_list_changes returning position_id),
       counts as (select position_id, count(*) as n from folded group by position_id),
       bumped as (update positions p set candidate_list_base = p.candidate_list_base + c.n
                    from counts c where p.id = c.position_id returning 1)
  select count(*) into moved from folded;
  return moved;
end $$;
