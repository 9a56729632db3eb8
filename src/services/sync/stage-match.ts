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
