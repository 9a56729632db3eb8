import { and, eq, inArray, or, sql, type SQL } from "drizzle-orm";
import type { ActivityKind } from "../../../contracts/proxy/activity.js";
import type { Queryable } from "../../../shared/db/database.js";
import type { KeysetCursor } from "../../../shared/db/keyset-cursor.js";
import { assessmentOrders, type AssessmentOrderRow } from "../assessments/assessments.tables.js";
import { syncRuns, upstreamCallFailures, webhookEvents, writeBacks, type WriteBackRow } from "../sync.tables.js";
import { listedRun, quietRunsAfter } from "../sync-runs.repository.js";

export type ActivityFilter = {
  integrationId: string;
  orgId: string;
  kinds: readonly ActivityKind[];
  statuses: readonly string[] | undefined;
  since: string | undefined;
  until: string | undefined;
  candidateId: string | undefined;
  positionId: string | undefined;
};

/** One entry of a page: which row of which kind; `key` (`kind:id`) orders entries of the same instant. */
export type ActivityKey = { kind: ActivityKind; id: string; key: string; cursorAt: string };

const rowsOf = <R>(result: unknown): R[] => (result as { rows: R[] }).rows;

/** How each kind is read: its table, id, time and state columns, and how it reaches a candidate and a position. */
type Source = {
  from: SQL;
  id: SQL;
  at: SQL;
  status: SQL;
  candidate: SQL | null;
  position: SQL | null;
  org: (orgId: string) => SQL;
  /** Which rows are entries of their own (a quiet sync run is folded into the run before it). */
  listed?: SQL;
};
const ofOrg = (orgId: string) => sql`x.org_id = ${orgId}::uuid`;
const SOURCES: Record<ActivityKind, Source> = {
  event: {
    from: sql`webhook_events x`,
    id: sql`x.id`,
    at: sql`x.received_at`,
    status: sql`x.status`,
    candidate: null,
    position: null,
    // An event is stored before its organisation is known only when nobody here owned its integration.
    org: (orgId) => sql`(x.org_id is null or x.org_id = ${orgId}::uuid)`,
  },
  sync_run: {
    from: sql`sync_runs x`,
    id: sql`x.id::text`,
    at: sql`x.created_at`,
    status: sql`x.state`,
    candidate: null,
    position: null,
    org: ofOrg,
    listed: listedRun("x"),
  },
  write_back: {
    from: sql`write_backs x`,
    id: sql`x.id::text`,
    at: sql`x.created_at`,
    status: sql`x.state`,
    candidate: sql`x.candidate_id`,
    position: sql`x.position_id`,
    org: ofOrg,
  },
  upstream_call: {
    from: sql`upstream_call_failures x left join write_backs w on w.id = x.write_back_id`,
    id: sql`x.id::text`,
    at: sql`x.created_at`,
    status: sql`'failed'`,
    candidate: sql`w.candidate_id`,
    position: sql`w.position_id`,
    org: ofOrg,
  },
  // An order received (accepted or rejected), at its receipt; its result is its write-back's entry.
  assessment_order: {
    from: sql`assessment_orders x`,
    id: sql`x.id::text`,
    at: sql`x.created_at`,
    status: sql`x.status`,
    candidate: sql`x.candidate_id`,
    position: sql`x.position_id`,
    org: ofOrg,
  },
};

/** The newest `limit` entries of one kind that pass the filter and come after `after`, or null when the filter rules the kind out. */
function branch(kind: ActivityKind, f: ActivityFilter, after: KeysetCursor | undefined, limit: number): SQL | null {
  const s = SOURCES[kind];
  const key = sql`${`${kind}:`} || ${s.id}`;
  const where: SQL[] = [sql`x.integration_id = ${f.integrationId}`, s.org(f.orgId)];
  if (s.listed) where.push(s.listed);
  if (f.candidateId || f.positionId) {
    if (!s.candidate || !s.position) return null; // events and runs are the integration's, not a candidate's
    if (f.candidateId) where.push(sql`${s.candidate} = ${f.candidateId}::uuid`);
    if (f.positionId) where.push(sql`${s.position} = ${f.positionId}::uuid`);
  }
  if (f.statuses)
    where.push(
      sql`${s.status} in (${sql.join(
        f.statuses.map((v) => sql`${v}`),
        sql`, `,
      )})`,
    );
  if (f.since) where.push(sql`${s.at} >= ${f.since}::timestamptz`);
  if (f.until) where.push(sql`${s.at} < ${f.until}::timestamptz`);
  if (after) where.push(sql`(${s.at}, ${key}) < (${after.createdAt}::timestamptz, ${after.id})`);
  return sql`(select ${kind}::text as kind, ${s.id} as id, ${key} as key, ${s.at} as at from ${s.from}
    where ${sql.join(where, sql` and `)} order by ${s.at} desc, ${key} desc limit ${limit}::int)`;
}

/**
 * One page of an integration's trail, newest first, keyset-paginated on (time, `kind:id`): each kind
 * reads at most `limit + 1` rows from its (integration, time) index, the union keeps the newest.
 * Answers the entries (kind and id); the caller reads their rows.
 */
export async function activityPage(
  q: Queryable,
  f: ActivityFilter,
  page: { limit: number; after?: KeysetCursor | undefined },
): Promise<ActivityKey[]> {
  const branches = f.kinds.map((k) => branch(k, f, page.after, page.limit + 1)).filter((b): b is SQL => b !== null);
  if (branches.length === 0) return [];
  return rowsOf<ActivityKey>(
    await q.execute(sql`
      select kind, id, key, to_char(at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as "cursorAt"
        from (${sql.join(branches, sql` union all `)}) a
       order by at desc, key desc
       limit ${page.limit + 1}::int`),
  );
}

/** The rows of a page's entries, by kind (each read by primary key). */
export async function activityRows(q: Queryable, keys: ActivityKey[]) {
  const ids = (kind: ActivityKind) => keys.filter((k) => k.kind === kind).map((k) => k.id);
  const read = async <T>(list: string[], load: (list: string[]) => Promise<T[]>) => (list.length ? load(list) : []);
  const [events, runs, backs, calls, orders] = await Promise.all([
    read(ids("event"), (l) => q.select().from(webhookEvents).where(inArray(webhookEvents.id, l))),
    read(ids("sync_run"), (l) => q.select().from(syncRuns).where(inArray(syncRuns.id, l))),
    read(ids("write_back"), (l) => q.select().from(writeBacks).where(inArray(writeBacks.id, l))),
    read(ids("upstream_call"), (l) => q.select().from(upstreamCallFailures).where(inArray(upstreamCallFailures.id, l))),
    read(ids("assessment_order"), (l) => q.select().from(assessmentOrders).where(inArray(assessmentOrders.id, l))),
  ]);
  // A failed call of a write-back names the write-back's candidate and position.
  const callBacks = calls.map((c) => c.writeBackId).filter((id): id is string => id !== null && !backs.some((b) => b.id === id));
  const [more, quiet] = await Promise.all([
    read([...new Set(callBacks)], (l) => q.select().from(writeBacks).where(inArray(writeBacks.id, l))),
    quietRunsAfter(
      q,
      runs.map((r) => r.id),
    ),
  ]);
  const allBacks = [...backs, ...more];
  return {
    events: new Map(events.map((r) => [r.id, r])),
    runs: new Map(runs.map((r) => [r.id, r])),
    quietRuns: quiet,
    writeBacks: new Map(allBacks.map((r) => [r.id, r])),
    calls: new Map(calls.map((r) => [r.id, r])),
    orders: new Map(orders.map((r) => [r.id, r])),
    ordersOfWriteBacks: await ordersOfWriteBacks(q, allBacks),
  };
}

/** The orders whose results these write-backs write (keyed `integration_id:order_id`), to name their packages. */
async function ordersOfWriteBacks(q: Queryable, backs: WriteBackRow[]): Promise<Map<string, AssessmentOrderRow>> {
  const keys = backs
    .filter((b) => b.assessmentOrderId !== null)
    .map((b) => ({ integrationId: b.integrationId, orderId: b.assessmentOrderId! }));
  if (!keys.length) return new Map();
  const rows = await q
    .select()
    .from(assessmentOrders)
    .where(or(...keys.map((k) => and(eq(assessmentOrders.integrationId, k.integrationId), eq(assessmentOrders.orderId, k.orderId)))));
  return new Map(rows.map((r) => [`${r.integrationId}:${r.orderId}`, r]));
}
export type ActivityRows = Awaited<ReturnType<typeof activityRows>>;
