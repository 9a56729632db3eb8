import { eq, inArray, sql } from "drizzle-orm";
import type { Queryable } from "../../../shared/db/database.js";
import { integrationHealth } from "../sync.tables.js";
import { BROKEN_AFTER_FAILED_SYNCS, RECENT_FAILURE_HOURS, type Health, type HealthFacts } from "./integration-health.js";

type FactsRow = {
  id: string;
  syncs: ("succeeded" | "failed")[] | null;
  last_sync_error: string | null;
  failed_write_backs: number;
  last_write_back_error: string | null;
  failed_events: number;
  last_event_error: string | null;
};

const rowsOf = <R>(result: unknown): R[] => (result as { rows: R[] }).rows;

/**
 * What health is computed from, for each of these integrations, in one statement: its newest
 * finished sync runs, and its write-backs and webhook events that failed lately (each read from
 * its own index, never the integration's whole history). The upstream state comes from the caller.
 */
export async function loadHealthFacts(q: Queryable, integrationIds: string[]): Promise<Map<string, Omit<HealthFacts, "status">>> {
  if (integrationIds.length === 0) return new Map();
  const since = sql`now() - ${RECENT_FAILURE_HOURS}::int * interval '1 hour'`;
  const rows = rowsOf<FactsRow>(
    await q.execute(sql`
      select i.id, r.syncs, r.last_sync_error, w.failed_write_backs, w.last_write_back_error, e.failed_events, e.last_event_error
        from unnest(${sql.param(integrationIds)}::text[]) as i(id)
        left join lateral (
          select array_agg(x.state order by x.created_at desc) as syncs,
                 (array_agg(x.last_error order by x.created_at desc) filter (where x.state = 'failed'))[1] as last_sync_error
            from (select state, last_error, created_at from sync_runs s
                   where s.integration_id = i.id and s.state in ('succeeded', 'failed')
                   order by s.created_at desc limit ${BROKEN_AFTER_FAILED_SYNCS}::int) x
        ) r on true
        left join lateral (
          select count(*)::int as failed_write_backs, (array_agg(last_error order by updated_at desc))[1] as last_write_back_error
            from write_backs w where w.integration_id = i.id and w.state = 'failed' and w.updated_at > ${since}
        ) w on true
        left join lateral (
          select count(*)::int as failed_events, (array_agg(last_error order by processed_at desc))[1] as last_event_error
            from webhook_events e where e.integration_id = i.id and e.status = 'failed' and e.processed_at > ${since}
        ) e on true`),
  );
  return new Map(
    rows.map((r) => [
      r.id,
      {
        syncs: r.syncs ?? [],
        lastSyncError: r.last_sync_error,
        failedWriteBacks: Number(r.failed_write_backs),
        lastWriteBackError: r.last_write_back_error,
        failedEvents: Number(r.failed_events),
        lastEventError: r.last_event_error,
      },
    ]),
  );
}

/** The last known health of each of these integrations (none recorded: not in the map). */
export async function storedHealth(q: Queryable, integrationIds: string[], opts: { lock?: boolean } = {}): Promise<Map<string, Health>> {
  if (integrationIds.length === 0) return new Map();
  const query = q
    .select({ id: integrationHealth.integrationId, state: integrationHealth.state, reason: integrationHealth.reason })
    .from(integrationHealth)
    .where(inArray(integrationHealth.integrationId, integrationIds))
    .orderBy(integrationHealth.integrationId);
  const rows = opts.lock ? await query.for("update") : await query;
  return new Map(rows.map((r) => [r.id, { state: r.state, reason: r.reason }]));
}

/** Makes sure each integration has a health row (ok until told otherwise), so it can be locked. */
export async function ensureHealthRows(q: Queryable, integrations: { id: string; orgId: string }[]): Promise<void> {
  if (integrations.length === 0) return;
  await q
    .insert(integrationHealth)
    .values(integrations.map((i) => ({ integrationId: i.id, orgId: i.orgId })))
    .onConflictDoNothing();
}

/** Records an integration's health; `changed` moves changed_at (a new state, not a new wording). */
export async function saveHealth(q: Queryable, integrationId: string, health: Health, changed: boolean): Promise<void> {
  await q
    .update(integrationHealth)
    .set({ state: health.state, reason: health.reason, ...(changed ? { changedAt: new Date() } : {}) })
    .where(eq(integrationHealth.integrationId, integrationId));
}
