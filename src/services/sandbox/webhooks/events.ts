/** The `data` of each webhook event, built from an integration (reference §5). */
import type {
  AtsModelName,
  DataChangedData,
  IntegrationCreatedData,
  IntegrationDeletedData,
  IntegrationStateChangedData,
  SyncFinishedData,
  SyncState,
  SyncType,
} from "../../../contracts/upstream/index.js";
import type { Integration } from "../store/sandbox-store.js";

export const dataChanged = (i: Integration, models: AtsModelName[]): DataChangedData => ({
  integration_id: i.id,
  integration_tool: i.tool.id,
  integration_category: i.category,
  changed_models: [...new Set(models)].map((name) => ({ name })),
});

export const integrationCreated = (i: Integration): IntegrationCreatedData => ({
  id: i.id,
  tool: i.tool.id,
  category: i.category,
  end_user: i.endUser,
});

export const integrationDeleted = (i: Integration, at: number): IntegrationDeletedData => ({
  ...integrationCreated(i),
  deleted_at: new Date(at).toISOString(),
});

export const integrationStateChanged = (i: Integration, at: number): IntegrationStateChangedData => ({
  integration_tool: i.tool.id,
  integration_id: i.id,
  integration_category: i.category,
  end_user: i.endUser,
  qa_status: i.qaStatus,
  setup_status: i.setupStatus,
  state: i.status,
  updated_at: new Date(at).toISOString(),
});

export function syncFinished(
  i: Integration,
  sync: { id: string; type: SyncType; startedAt: number },
  endedAt: number,
  state: SyncState,
  origin: string,
): SyncFinishedData {
  return {
    sync_id: sync.id,
    sync_state: state,
    sync_started_at: new Date(sync.startedAt).toISOString(),
    sync_ended_at: new Date(endedAt).toISOString(),
    sync_duration_seconds: Math.round((endedAt - sync.startedAt) / 1000),
    integration_id: i.id,
    integration_tool: i.tool.id,
    integration_category: i.category,
    end_user: i.endUser,
    log_url: `${origin}/sandbox/integrations/${encodeURIComponent(i.id)}`,
  };
}

/** Every ATS model a full sync reports as changed. */
export const ALL_ATS_MODELS: AtsModelName[] = [
  "ats_jobs",
  "ats_application_stages",
  "ats_candidates",
  "ats_applications",
  "ats_users",
  "ats_tags",
  "ats_offers",
  "ats_interviews",
  "ats_rejection_reasons",
  "ats_join_candidates_tags",
];
