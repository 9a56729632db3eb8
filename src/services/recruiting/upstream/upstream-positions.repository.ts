import { and, eq, getTableColumns, inArray, sql } from "drizzle-orm";
import type { Queryable } from "../../../shared/db/database.js";
import { candidates } from "../candidates/candidates.tables.js";
import type { PositionState } from "../../../contracts/recruiting/positions.js";
import { positions, type PositionRow } from "../positions/positions.tables.js";

/**
 * What the sync engine knows about an upstream job. name, department, location and
 * role_description follow the job on every sync; `state` and `candidate_stage` are initial values
 * for a NEW position only; everything else on a position is Hirebridge's.
 */
export type UpstreamJob = {
  upstream_job_id_id: string;
  name: string;
  department?: string | null;
  location?: string | null;
  role_description?: string | null;
  state?: PositionState;
  candidate_stage?: string | null;
};

/** An upserted row, with whether it was new and whether anything changed (true for new rows). */
export type UpsertedPosition = PositionRow & { inserted: boolean; changed: boolean };

/** Upstream text longer than a column allows is cut rather than failing the whole page. */
export const clip = (value: string | null | undefined, max: number): string | null =>
  value === null || value === undefined
    ? null
    : value.length <= max // UTF-16 units: never fewer than code points, so nothing to cut
      ? value
      : [...value].slice(0, max).join("");

/** The rows of a raw statement's result (node-postgres and PGlite both answer `{ rows }`). */
export const rowsOf = <R>(result: unknown): R[] => (result as { rows: R[] }).rows;

/**
 * Upserts a page of jobs as positions of `orgId` on (org, integration, job id), in one statement.
 * Only the upstream-owned fields change on an existing position: name, department, location,
 * role_description, and state when the page gives every job's state (the job's status decides
 * whether the position is live). min_score, stages, agent and languages stay as Hirebridge set
 * them; candidate_stage is only an initial value. updated_at moves only when something changed.
 * Answers every position of the page, flagged.
 */
export async function upsertUpstreamPositions(
  q: Queryable,
  orgId: string,
  integrationId: string,
  jobs: UpstreamJob[],
): Promise<UpsertedPosition[]> {
  const byId = new Map(jobs.map((j) => [j.upstream_job_id_id, j])); // a row may be touched once per statement
  if (byId.size === 0) return [];
  const values = [...byId.values()].map((j) => ({
    organizationId: orgId,
    upstreamIntegrationId: integrationId,
    upstreamJobIdId: j.upstream_job_id_id,
    name: clip(j.name.trim() || j.upstream_job_id_id, 100)!,
    department: clip(j.department, 100),
    location: clip(j.location, 100),
    roleDescription: clip(j.role_description, 500),
    ...(j.state ? { state: j.state } : {}),
    candidateStage: clip(j.candidate_stage, 200),
  }));
  // Rows without a state would carry the column default in `excluded`: follow state only when all have one.
  const followState = [...byId.values()].every((j) => j.state);
  const changed = followState
    ? sql`(${positions.name}, ${positions.department}, ${positions.location}, ${positions.roleDescription}, ${positions.state})
    is distinct from (excluded.name, excluded.department, excluded.location, excluded.role_description, excluded.state)`
    : sql`(${positions.name}, ${positions.department}, ${positions.location}, ${positions.roleDescription})
    is distinct from (excluded.name, excluded.department, excluded.location, excluded.role_description)`;
  return q
    .insert(positions)
    .values(values)
    .onConflictDoUpdate({
      target: [positions.organizationId, positions.upstreamIntegrationId, positions.upstreamJobIdId],
      set: {
        name: sql`excluded.name`,
        department: sql`excluded.department`,
        location: sql`excluded.location`,
        roleDescription: sql`excluded.role_description`,
        ...(followState ? { state: sql`excluded.state` } : {}),
        updatedAt: sql`case when ${changed} then now() else ${positions.updatedAt} end`,
      },
    })
    .returning({
      ...getTableColumns(positions),
      // xmax is 0 on a freshly inserted row version; updated_at moved to now() only if something changed.
      inserted: sql<boolean>`(xmax = 0)`,
      changed: sql<boolean>`(${positions.updatedAt} = now())`,
    });
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
