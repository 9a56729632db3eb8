/**
 * Upstream webhook events (reference/upstream-kombo.md §5): a POST of `{id, type, data}` whose raw
 * body is signed with HMAC-SHA256 (base64url, no padding) in `X-Kombo-Signature`. The sandbox sends
 * the same value in `X-Upstream-Signature` too (the proxy spec's receiver header).
 */
import type { DateTimeString } from "./ats-records.js";
import type { EndUser, IntegrationCategory, IntegrationStatus, QaStatus, SetupStatus } from "./integration-records.js";

export const WEBHOOK_EVENT_TYPES = [
  "data-changed",
  "sync-finished",
  "integration-created",
  "integration-deleted",
  "connection-flow-failed",
  "integration-state-changed",
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export const SIGNATURE_HEADERS = ["x-kombo-signature", "x-upstream-signature"] as const;

/** ATS model names of `data-changed.changed_models[].name` (a closed enum in the SDK). */
export type AtsModelName =
  | "ats_users" | "ats_jobs" | "ats_job_postings" | "ats_candidates" | "ats_application_stages"
  | "ats_applications" | "ats_screening_questions" | "ats_tags" | "ats_interviews" | "ats_offers"
  | "ats_rejection_reasons" | "ats_roles" | "ats_join_candidates_tags" | "ats_join_jobs_application_stages"
  | "ats_join_jobs_screening_questions" | "ats_join_user_job_role_assignments" | "ats_join_jobs_users"
  | "ats_join_users_roles" | "ats_join_interviews_users";

export type SyncState = "SUCCEEDED" | "CANCELLED" | "FAILED" | "PARTIALLY_FAILED" | "AUTHENTICATION_FAILED" | "TIMED_OUT";

export type DataChangedData = {
  integration_id: string;
  integration_tool: string;
  integration_category: IntegrationCategory;
  changed_models: { name: AtsModelName }[];
};

export type SyncFinishedData = {
  sync_id: string;
  sync_state: SyncState;
  sync_started_at: DateTimeString;
  sync_ended_at: DateTimeString;
  sync_duration_seconds: number;
  integration_id: string;
  integration_tool: string;
  integration_category: IntegrationCategory;
  end_user: EndUser;
  log_url: string;
};

export type IntegrationCreatedData = { id: string; tool: string; category: IntegrationCategory; end_user: EndUser };

export type IntegrationDeletedData = IntegrationCreatedData & { deleted_at: DateTimeString };

export type ConnectionFlowFailedData = {
  integration_tool: string;
  integration_category: IntegrationCategory;
  end_user: EndUser;
  log_url: string;
};

export type IntegrationStateChangedData = {
  integration_tool: string;
  integration_id: string;
  integration_category: IntegrationCategory;
  end_user: EndUser;
  qa_status: QaStatus;
  setup_status: SetupStatus;
  state: IntegrationStatus;
  updated_at: DateTimeString;
};

export type WebhookDataByType = {
  "data-changed": DataChangedData;
  "sync-finished": SyncFinishedData;
  "integration-created": IntegrationCreatedData;
  "integration-deleted": IntegrationDeletedData;
  "connection-flow-failed": ConnectionFlowFailedData;
  "integration-state-changed": IntegrationStateChangedData;
};

/** One event as delivered: `id` (24 chars) is the deduplication key. */
export type WebhookEvent<K extends WebhookEventType = WebhookEventType> = {
  [T in K]: { id: string; type: T; data: WebhookDataByType[T] };
}[K];
