import { and, eq, inArray, sql } from "drizzle-orm";
import type { Queryable } from "../../../shared/db/database.js";
import { NO_EVENTS_OUT } from "../../../shared/no-events-out.js";
import type { EventsOut } from "../../../shared/ports/events-out.js";
import { positionJsonText } from "../positions/position-json.js";
import { upsertEvents } from "./upsert-events.js";
import type { UpstreamJob } from "../../../shared/ports/recruiting-sync.js";
import { cut } from "../../../shared/text.js";
import { candidates } from "../candidates/candidates.tables.js";
import { positions, type PositionRow } from "../positions/positions.tables.js";

/** An upserted row, with whether it was new and whether anything changed (true for new rows). */
export type UpsertedPosition = PositionRow & { inserted: boolean; changed: boolean };

/** The rows of a raw statement's result (node-postgres and PGlite both answer `{ rows }`). */
export const rowsOf = <R>(result: unknown): R[] => (result as { rows: R[] }).rows;

/**
 * Writes a page of jobs as positions of `orgId` on (org, integration, job id), in one statement
 * (the page as one jsonb parameter). Only the upstream-owned fields change on an existing position:
 * name, department, location, role_description, and state when the page gives every job's state
 * (the job's status decides whether the position is live). min_score, stages, agent and languages
 * stay as Hirebridge set them; candidate_stage is only an initial value. A position whose
 * upstream fields did not change is not rewritten. Answers the positions written (new or changed).
 */
export async function writeUpstreamPositions(
  q: Queryable,
  orgId: string,
  integrationId: string,
  jobs: UpstreamJob[],
  events: EventsOut<Queryable> = NO_EVENTS_OUT,
): Promise<{ id: string; inserted: boolean }[]> {
  const byId = new Map(jobs.map((j) => [j.upstream_job_id_id, j])); // a row may be touched once per statement
  if (byId.size === 0) return [];
  const input = [...byId.values()].map((j) => ({
    job: j.upstream_job_id_id,
    // Upstream text longer than its column (migrations/0201_recruiting.sql) is cut, not refused.
    name: cut(j.name.trim() || j.upstream_job_id_id, 100),
    department: cut(j.department, 100),
    location: cut(j.location, 100),
    description: cut(j.role_description, 500),
    state: j.state ?? null,
    stage: cut(j.candidate_stage, 200),
  }));
  // Without a state for every job, state is left as it is (a new position takes the column's default).
  const followState = input.every((j) => j.state);
  // position.created / position.updated for the rows written (the outbox port): nothing built unless subscribed.
  const { returning, items } = upsertEvents(events, { kind: "position", orgId, rows: "w", target: "p", json: positionJsonText });
  return rowsOf<{ id: string; inserted: boolean }>(
    await q.execute(sql`
      with j as (
        select * from jsonb_to_recordset(${JSON.stringify(input)}::jsonb)
          as j(job text, name text, department text, location text, description text, state text, stage text)
      ), w as (
        insert into positions as p (organization_id, upstream_integration_id, upstream_job_id_id, name, department, location,
                                    role_description, state, candidate_stage)
        select ${orgId}::uuid, ${integrationId}, job, name, department, location, description, coalesce(state, 'draft'), stage from j
        on conflict (organization_id, upstream_integration_id, upstream_job_id_id) do update
           set name = excluded.name, department = excluded.department, location = excluded.location,
               role_description = excluded.role_description,
               state = case when ${followState}::boolean then excluded.state else p.state end, updated_at = now()
         where (p.name, p.department, p.location, p.role_description)
               is distinct from (excluded.name, excluded.department, excluded.location, excluded.role_description)
            or (${followState}::boolean and p.state is distinct from excluded.state)
        returning p.id, (p.xmax = 0) as inserted${sql.raw(returning)}
      )${sql.raw(items)}
      select id, inserted from w`),
  );
}

/**
 * Upserts a page of jobs as positions (see writeUpstreamPositions), answering every position of
 * the page, flagged new and changed, in the page's order.
 */
export async function upsertUpstreamPositions(
  q: Queryable,
  orgId: string,
  integrationId: string,
  jobs: UpstreamJob[],
): Promise<UpsertedPosition[]> {
  const written = await writeUpstreamPositions(q, orgId, integrationId, jobs);
  const order = [...new Set(jobs.map((j) => j.upstream_job_id_id))];
  if (order.length === 0) return [];
  const flags = new Map(written.map((w) => [w.id, w.inserted]));
  const rows = await q
    .select()
    .from(positions)
    .where(
      and(
        eq(positions.organizationId, orgId),
        eq(positions.upstreamIntegrationId, integrationId),
        inArray(positions.upstreamJobIdId, order),
      ),
    );
  const at = (r: PositionRow) => order.indexOf(r.upstreamJobIdId!);
  return rows.sort((a, b) => at(a) - at(b)).map((r) => ({ ...r, inserted: flags.get(r.id) === true, changed: flags.has(r.id) }));
}

/**
 * Forgets an integration: its positions and their candidates keep everything Hirebridge owns, but
 * lose their upstream ids (so a later connection of the same ATS links afresh).
 */
export async function unlinkIntegration(
  q: Queryable,
  orgId: string,
  integrationId: string,
): Promise<{ positions: number; candidates: number }> {
  const linked = q
    .select({ id: positions.id })
    .from(positions)
    .where(and(eq(positions.organizationId, orgId), eq(positions.upstreamIntegrationId, integrationId)));
  const unlinkedCandidates = await q
    .update(candidates)
    .set({ upstreamApplicationId: null, updatedAt: sql`now()` })
    .where(
      and(
        eq(candidates.organizationId, orgId),
        inArray(candidates.positionId, linked),
        sql`${candidates.upstreamApplicationId} is not null`,
      ),
    )
    .returning({ id: candidates.id });
  const unlinkedPositions = await q
    .update(positions)
    .set({ upstreamIntegrationId: null, upstreamJobIdId: null, updatedAt: sql`now()` })
    .where(and(eq(positions.organizationId, orgId), eq(positions.upstreamIntegrationId, integrationId)))
    .returning({ id: positions.id });
  return { positions: unlinkedPositions.length, candidates: unlinkedCandidates.length };
}
