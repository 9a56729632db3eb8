import { sql, type SQL } from "drizzle-orm";
import { DEFAULT_DATA_RETENTION, type DataRetention, type DataRetentionResponse } from "../../contracts/recruiting/data-retention.js";
import type { Queryable } from "../../shared/db/database.js";

/**
 * Every statement of the retention module: the organisations' policies, the selection of the
 * candidates due, the bounded purges of the operational tables and the runs' records. The
 * operational tables belong to other services (sync, recruiting); only their age and state
 * columns are read here, and whole rows past their retention are deleted.
 */

const rowsOf = <R>(result: unknown): R[] => (result as { rows: R[] }).rows;

type PolicyRow = {
  candidate_days_after_last_change: number | null;
  candidate_days_after_rejection: number | null;
  candidate_days_after_hire: number | null;
  deleted_integration_days: number;
  deleted_application_days: number;
  updated_at: string | Date | null;
};

const toPolicy = (row: PolicyRow | undefined): DataRetentionResponse =>
  row
    ? {
        candidate_days_after_last_change: row.candidate_days_after_last_change,
        candidate_days_after_rejection: row.candidate_days_after_rejection,
        candidate_days_after_hire: row.candidate_days_after_hire,
        deleted_integration_days: row.deleted_integration_days,
        deleted_application_days: row.deleted_application_days,
        updated_at: row.updated_at === null ? null : new Date(row.updated_at).toISOString(),
      }
    : { ...DEFAULT_DATA_RETENTION, updated_at: null };

/** The organisation's policy (its defaults while it never set one). */
export async function readPolicy(db: Queryable, orgId: string): Promise<DataRetentionResponse> {
  const result = await db.execute(sql`select * from data_retention_policies where organization_id = ${orgId}`);
  return toPolicy(rowsOf<PolicyRow>(result)[0]);
}

/** Stores the whole policy `p` of the organisation; answers it as stored. */
export async function writePolicy(db: Queryable, orgId: string, p: DataRetention): Promise<DataRetentionResponse> {
  const result = await db.execute(sql`
    insert into data_retention_policies as d (organization_id, candidate_days_after_last_change, candidate_days_after_rejection,
      candidate_days_after_hire, deleted_integration_days, deleted_application_days, updated_at)
    values (${orgId}, ${p.candidate_days_after_last_change}, ${p.candidate_days_after_rejection}, ${p.candidate_days_after_hire},
      ${p.deleted_integration_days}, ${p.deleted_application_days}, now())
    on conflict (organization_id) do update set
      candidate_days_after_last_change = excluded.candidate_days_after_last_change,
      candidate_days_after_rejection = excluded.candidate_days_after_rejection,
      candidate_days_after_hire = excluded.candidate_days_after_hire,
      deleted_integration_days = excluded.deleted_integration_days,
      deleted_application_days = excluded.deleted_application_days,
      updated_at = now()
    returning *`);
  return toPolicy(rowsOf<PolicyRow>(result)[0]);
}

/** Why a candidate is due: the rule of the policy that made it so. */
export type DueReason = "last_change" | "rejection" | "hire" | "deleted_integration";
export type DueCandidate = { id: string; orgId: string; reason: DueReason };

const olderThan = (at: SQL, now: Date, days: SQL) => sql`${at} <= ${now.toISOString()}::timestamptz - make_interval(days => ${days})`;

/**
 * Up to `limit` candidates due at `now`, oldest change first: by the organisations' policies
 * (after their last change, after rejection, after hire), and those of positions linked to an
 * integration deleted longer ago than the organisation's `deleted_integration_days` (default 14).
 */
export async function selectDueCandidates(db: Queryable, now: Date, limit: number): Promise<DueCandidate[]> {
  const result = await db.execute(sql`
    select id, org_id as "orgId", reason from (
      select c.id, c.organization_id as org_id, c.updated_at,
        case
          when p.candidate_days_after_hire is not null and c.hired
            and ${olderThan(sql`c.updated_at`, now, sql`p.candidate_days_after_hire`)} then 'hire'
          when p.candidate_days_after_rejection is not null and c.state = 'rejected'
            and ${olderThan(sql`c.updated_at`, now, sql`p.candidate_days_after_rejection`)} then 'rejection'
          else 'last_change'
        end as reason
      from data_retention_policies p
      join candidates c on c.organization_id = p.organization_id
      where (p.candidate_days_after_last_change is not null
               and ${olderThan(sql`c.updated_at`, now, sql`p.candidate_days_after_last_change`)})
         or (p.candidate_days_after_rejection is not null and c.state = 'rejected'
               and ${olderThan(sql`c.updated_at`, now, sql`p.candidate_days_after_rejection`)})
         or (p.candidate_days_after_hire is not null and c.hired
               and ${olderThan(sql`c.updated_at`, now, sql`p.candidate_days_after_hire`)})
      union all
      select c.id, c.organization_id, c.updated_at, 'deleted_integration'
      from integrations i
      join positions pos on pos.upstream_integration_id = i.id and pos.organization_id = i.org_id
      join candidates c on c.position_id = pos.id
      left join data_retention_policies p on p.organization_id = i.org_id
      where i.deleted_at is not null
        and ${olderThan(sql`i.deleted_at`, now, sql`coalesce(p.deleted_integration_days, 14)`)}
    ) due
    order by updated_at, id
    limit ${limit}`);
  const seen = new Set<string>();
  return rowsOf<DueCandidate>(result).filter((c) => !seen.has(c.id) && seen.add(c.id));
}

/** An operational table's purge: which rows are past `cutoff`, and how they are found. */
export type PurgeKind = "webhook_events" | "sync_runs" | "write_backs" | "activity" | "idempotency_keys" | "retention_runs";

const PURGES: Record<PurgeKind, (cutoff: string) => SQL> = {
  webhook_events: (c) => sql`select id from webhook_events where status <> 'queued' and received_at < ${c}::timestamptz`,
  sync_runs: (c) => sql`select id from sync_runs where state in ('succeeded', 'failed', 'cancelled') and created_at < ${c}::timestamptz`,
  write_backs: (c) => sql`select id from write_backs where state in ('done', 'failed') and updated_at < ${c}::timestamptz`,
  activity: (c) => sql`select id from upstream_call_failures where last_at < ${c}::timestamptz`,
  idempotency_keys: (c) => sql`select ctid as id from idempotency_keys where created_at < ${c}::timestamptz`,
  retention_runs: (c) => sql`select id from retention_runs where finished_at < ${c}::timestamptz`,
};
const TABLE_OF: Record<PurgeKind, string> = {
  webhook_events: "webhook_events",
  sync_runs: "sync_runs",
  write_backs: "write_backs",
  activity: "upstream_call_failures",
  idempotency_keys: "idempotency_keys",
  retention_runs: "retention_runs",
};

/** Deletes up to `batch` rows of `kind` older than `cutoff`; answers how many went. */
export async function purgeBatch(db: Queryable, kind: PurgeKind, cutoff: Date, batch: number): Promise<number> {
  const key = kind === "idempotency_keys" ? "ctid" : "id";
  const result = await db.execute(sql`
    delete from ${sql.raw(TABLE_OF[kind])}
    where ${sql.raw(key)} in (${PURGES[kind](cutoff.toISOString())} limit ${batch})
    returning 1`);
  return rowsOf(result).length;
}

/** Starts the record of a run; answers its id. */
export async function startRun(db: Queryable, startedAt: Date): Promise<string> {
  const result = await db.execute(sql`insert into retention_runs (started_at) values (${startedAt.toISOString()}) returning id`);
  return rowsOf<{ id: string }>(result)[0]!.id;
}

/** Ends the record of a run with its counts by kind. */
export async function finishRun(
  db: Queryable,
  id: string,
  end: { counts: Record<string, number>; truncated: boolean; error: string | null },
): Promise<void> {
  await db.execute(sql`
    update retention_runs set finished_at = now(), counts = ${JSON.stringify(end.counts)}::jsonb,
      truncated = ${end.truncated}, error = ${end.error}
    where id = ${id}`);
}

export type RetentionRunRow = { id: string; counts: Record<string, number>; truncated: boolean; error: string | null };

/** The latest runs, newest first (tests and the bench read them). */
export async function latestRuns(db: Queryable, limit: number): Promise<RetentionRunRow[]> {
  const result = await db.execute(sql`select id, counts, truncated, error from retention_runs order by started_at desc limit ${limit}`);
  return rowsOf<RetentionRunRow>(result);
}
