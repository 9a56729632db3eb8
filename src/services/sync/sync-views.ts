import type { IntegrationSummary, SyncRun, SyncRunEntry, WriteBack } from "../../contracts/proxy/webhooks.js";
import type { QuietRunsRow } from "./sync-runs.repository.js";
import type { Health } from "./health/integration-health.js";
import type { OwnedIntegration } from "../../shared/ports/integrations.js";
import type { SyncModel, SyncRunRow, WriteBackRow } from "./sync.tables.js";

/** Rows as the API shows them: the answers of the sync module's routes. */

export const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function toSyncRun(r: SyncRunRow): SyncRun {
  return {
    id: r.id,
    model: r.model,
    type: r.type,
    trigger: r.trigger,
    state: r.state,
    created: r.createdCount,
    updated: r.updatedCount,
    unlinked: r.unlinkedCount,
    skipped: r.skippedCount,
    failed: r.failedCount,
    pages: r.pages,
    updated_after: iso(r.updatedAfter),
    created_at: r.createdAt.toISOString(),
    started_at: iso(r.startedAt),
    finished_at: iso(r.finishedAt),
    duration_ms: r.startedAt && r.finishedAt ? r.finishedAt.getTime() - r.startedAt.getTime() : null,
    last_error: r.lastError,
  };
}

/** A run as the history lists it, with the quiet runs folded into it. */
export function toSyncRunEntry(r: SyncRunRow, quiet: QuietRunsRow | undefined): SyncRunEntry {
  return { ...toSyncRun(r), quiet_runs: quiet ? { count: quiet.count, last_at: quiet.lastAt.toISOString() } : null };
}

export function toWriteBack(w: WriteBackRow): WriteBack {
  return {
    id: w.id,
    application_id: w.applicationId,
    candidate_id: w.candidateId,
    candidate_name: w.candidateName,
    position_id: w.positionId,
    position_name: w.positionName,
    outcome: w.outcome,
    target_stage: w.targetStage,
    target_stage_name: w.targetStageName,
    state: w.state,
    stage_moved_at: iso(w.stageMovedAt),
    link_added_at: iso(w.linkAddedAt),
    note_added_at: iso(w.noteAddedAt),
    attempts: w.attempts,
    last_error: w.lastError,
    created_at: w.createdAt.toISOString(),
  };
}

/** The name people see: the operator's, else the upstream's organisation name, else the id. */
export const displayName = (i: Pick<OwnedIntegration, "id" | "displayName" | "organizationName">) =>
  i.displayName ?? i.organizationName ?? i.id;

export function toIntegrationSummary(
  i: OwnedIntegration,
  runs: SyncRunRow[],
  pendingWriteBacks: number,
  health: Health,
): IntegrationSummary {
  const last = (model: SyncModel) => runs.find((r) => r.integrationId === i.id && r.model === model);
  const jobs = last("jobs");
  const applications = last("applications");
  return {
    id: i.id,
    display_name: displayName(i),
    organization_name: i.organizationName,
    tool: i.tool,
    category: i.category,
    state: i.status,
    setup_status: i.setupStatus,
    created_at: i.createdAt.toISOString(),
    last_sync: { jobs: jobs ? toSyncRun(jobs) : null, applications: applications ? toSyncRun(applications) : null },
    pending_write_backs: pendingWriteBacks,
    health,
  };
}
