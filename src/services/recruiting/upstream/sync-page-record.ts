import { type SQL, sql } from "drizzle-orm";
import type { Queryable } from "../../../shared/db/database.js";
import { NO_EVENTS_OUT } from "../../../shared/no-events-out.js";
import type { EventsOut } from "../../../shared/ports/events-out.js";
import type { SyncPageRecord } from "../../../shared/ports/recruiting-sync.js";

const iso = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const msOf = (column: string) => `floor(extract(epoch from ${column}) * 1000)`;

/**
 * The data of the run's `sync_run.finished` event, as the sync module's toSyncRun (sync-views.ts)
 * shows a run, built by the database from the run's row `r` (its last page ends it in this
 * statement, so the event is recorded here too; test/integration/webhooks-out/sync-events.test.ts
 * compares it with the sync history's answer).
 */
const RUN_JSON = `json_build_object(
  'id', r.id, 'model', r.model, 'type', r.type, 'trigger', r.trigger, 'state', r.state,
  'created', r.created_count, 'updated', r.updated_count, 'unlinked', r.unlinked_count, 'skipped', r.skipped_count,
  'failed', r.failed_count, 'pages', r.pages, 'updated_after', ${iso("r.updated_after")}, 'created_at', ${iso("r.created_at")},
  'started_at', ${iso("r.started_at")}, 'finished_at', ${iso("r.finished_at")},
  'duration_ms', (${msOf("r.finished_at")} - ${msOf("r.started_at")})::bigint, 'last_error', r.last_error,
  'integration_id', r.integration_id)`;

/** A run (of `rec`) that succeeded and changed nothing: the sync module's quiet run (sync-runs.repository.ts). */
const QUIET =
  "(state = 'succeeded' and type = 'DELTA' and created_count + updated_count + unlinked_count + skipped_count + failed_count = 0)";

/**
 * What a page write records in its own statement, so that the page and its record commit together
 * without a transaction around them (one round trip where begin, write, record and commit took
 * four). `lock` selects and locks the row the page is recorded on: the page is written only when
 * it answers one. `record` is the WITH items that record it, given the page's counts and `ok`,
 * true when the page is written; they may read `up` (the candidates written) and must do nothing
 * unless `ok`.
 */
export type PageRecording = {
  lock: SQL;
  record: (page: { created: SQL; updated: SQL; skipped: number; ok: SQL }) => SQL;
};

/**
 * A sync run's record of a page (`SyncPageRecord`) as WITH items of the page's own statement
 * (writeRecordedPage): the run's counts and resume point and, on its last page, its success and
 * checkpoint. The ONE place the recruiting API's statements touch the sync module's tables
 * (`sync_runs`, `sync_checkpoints`): the page and its record must commit together, and as two
 * statements in a transaction they cost a full sync a tenth of its time in round trips (bench/README.md
 * rounds 8 and 9). It does what the sync module's recordSyncPage and advanceCheckpoint do
 * (sync-runs.repository.ts), which record the pages written in a transaction. The run's row is
 * locked first, and only while the run is running: a run cancelled meanwhile gets neither the page
 * nor the record.
 */
export function syncPageRecording(page: SyncPageRecord, events: EventsOut<Queryable> = NO_EVENTS_OUT): PageRecording {
  const at = new Date();
  // A run that changed nothing is sync_run.unchanged (opt-in), as the sync module's runFinished says.
  const finished = page.finishedAt
    ? [
        events.statementItem({
          name: "run_event",
          type: "sync_run.finished",
          from: `(select * from rec where not ${QUIET}) r`,
          org: "r.org_id",
          data: RUN_JSON,
        }),
        events.statementItem({
          name: "run_quiet",
          type: "sync_run.unchanged",
          from: `(select * from rec where ${QUIET}) r`,
          org: "r.org_id",
          data: RUN_JSON,
        }),
      ]
        .filter(Boolean)
        .join(", ")
    : "";
  return {
    lock: sql`select id from sync_runs where id = ${page.runId} and state = 'running' for update`,
    record: (c) => sql`rec as (
      update sync_runs
         set created_count = created_count + ${c.created}, updated_count = updated_count + ${c.updated},
             skipped_count = skipped_count + ${c.skipped + page.skipped}::int, pages = pages + ${page.pages}::int,
             page_cursor = ${page.resume}::text,${page.finishedAt ? sql` state = 'succeeded', finished_at = ${page.finishedAt}::timestamptz,` : sql``}
             updated_at = ${at}::timestamptz
       where id = ${page.runId} and state = 'running' and ${c.ok}
      returning ${finished ? sql.raw("*") : sql`integration_id, model, started_at`}
    )${finished ? sql.raw(`, ${finished}`) : sql``}${
      page.finishedAt
        ? sql`, cp as (
      -- The checkpoint is the run's start (checkpointOf in sync-engine.ts), moved forward only.
      insert into sync_checkpoints (integration_id, model, synced_until)
      select integration_id, model, coalesce(started_at, ${page.finishedAt}::timestamptz) from rec
      on conflict (integration_id, model) do update
         set synced_until = greatest(sync_checkpoints.synced_until, excluded.synced_until), updated_at = ${at}::timestamptz
    )`
        : sql``
    }`,
  };
}
