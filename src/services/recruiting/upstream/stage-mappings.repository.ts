import { and, eq, inArray } from "drizzle-orm";
import type { Queryable } from "../../../shared/db/database.js";
import type { UpstreamJob } from "../../../shared/ports/recruiting-sync.js";
import { positions } from "../positions/positions.tables.js";

/** A position's stage fields, as its columns name them. */
const STAGE_COLUMNS = ["candidateStage", "passedStage", "rejectedStage", "needsReviewedStage"] as const;
type StageColumn = (typeof STAGE_COLUMNS)[number];
type JobStages = NonNullable<UpstreamJob["stages"]>;

/** The stage id a field's value names among the job's stages: by id first, then by name, case-insensitively. */
function stageIdOf(stages: JobStages, value: string): string | null {
  if (stages.some((s) => s.id === value)) return value;
  const name = value.trim().toLocaleLowerCase();
  return stages.find((s) => s.name?.trim().toLocaleLowerCase() === name)?.id ?? null;
}

/**
 * Stage mappings keep the stage's id (issue 42): a position's stage field that still holds a stage's
 * NAME (saved before the console stored ids, or sent by a client) becomes that stage's id when its
 * job is synced with its stages, so a later rename upstream changes nothing for the write-back. A
 * value that names no stage of the job is left as it is (the write-back reports it). Answers the
 * positions changed.
 */
export async function resolveStageMappings(q: Queryable, orgId: string, integrationId: string, jobs: UpstreamJob[]): Promise<number> {
  const stagesOf = new Map(jobs.filter((j) => j.stages?.length).map((j) => [j.upstream_job_id_id, j.stages!]));
  if (stagesOf.size === 0) return 0;
  const rows = await q
    .select({
      id: positions.id,
      job: positions.upstreamJobIdId,
      candidateStage: positions.candidateStage,
      passedStage: positions.passedStage,
      rejectedStage: positions.rejectedStage,
      needsReviewedStage: positions.needsReviewedStage,
    })
    .from(positions)
    .where(
      and(
        eq(positions.organizationId, orgId),
        eq(positions.upstreamIntegrationId, integrationId),
        inArray(positions.upstreamJobIdId, [...stagesOf.keys()]),
      ),
    );
  let changed = 0;
  for (const row of rows) {
    const stages = stagesOf.get(row.job!)!;
    const patch: Partial<Record<StageColumn, string>> = {};
    for (const column of STAGE_COLUMNS) {
      const value = row[column];
      const id = value ? stageIdOf(stages, value) : null;
      if (id && id !== value) patch[column] = id;
    }
    if (Object.keys(patch).length === 0) continue;
    await q
      .update(positions)
      .set(patch)
      .where(and(eq(positions.id, row.id), eq(positions.organizationId, orgId)));
    changed++;
  }
  return changed;
}
