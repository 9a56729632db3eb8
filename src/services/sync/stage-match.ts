import type { JobStage } from "../../contracts/upstream/index.js";

/**
 * A position's stage fields hold an upstream stage id or a stage name. They are matched against the
 * job's stages by id first, then by name, case-insensitively (ARCHITECTURE.md). Null when nothing
 * matches, so a misconfigured position is skipped and reported rather than guessed.
 */
export function matchStage(stages: readonly JobStage[], wanted: string | null | undefined): JobStage | null {
  if (!wanted) return null;
  const byId = stages.find((s) => s.id === wanted);
  if (byId) return byId;
  const name = wanted.trim().toLocaleLowerCase();
  return stages.find((s) => s.name?.trim().toLocaleLowerCase() === name) ?? null;
}

/** The position's stage field an outcome's write-back moves to. */
export const STAGE_FIELD_OF_OUTCOME = { passed: "passed_stage", rejected: "rejected_stage", needs_review: "needs_reviewed_stage" } as const;

/**
 * Why a write-back could not move its application: the stage its mapping names is not (any more) a
 * stage of the job, e.g. removed upstream. Names the mapping to fix and what to do next (issue 42).
 */
export function missingStageMessage(wb: {
  targetStage: string | null;
  targetStageName?: string | null;
  outcome: keyof typeof STAGE_FIELD_OF_OUTCOME;
  positionName: string | null;
  positionId: string;
}): string {
  const field = STAGE_FIELD_OF_OUTCOME[wb.outcome];
  const position = wb.positionName ? `'${wb.positionName}' (${wb.positionId})` : wb.positionId;
  return (
    `stage '${wb.targetStage}' is not a stage of the job (removed upstream?): remap ${field} of position ${position} ` +
    `to one of the job's stages (console: the position's Stage mapping; CLI: hirebridge positions update ${wb.positionId} --${field.replaceAll("_", "-")} <stage>), then Retry this write-back`
  );
}
