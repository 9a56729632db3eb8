/**
 * Upstream webhook events (reference/upstream-kombo.md §5): a POST of `{id, type, data}` whose raw
 * body is signed with HMAC-SHA256 (base64url, no padding) in `X-Kombo-Signature`. The sandbox sends
 * the same value in `X-Upstream-Signature` too (the proxy spec's receiver header). Each event's
 * `data` has its schema (WEBHOOK_DATA_SCHEMAS); the sandbox's webhook test checks what it sends.
 */
import { type Static, type TSchema, Type } from "@sinclair/typebox";
import { Literals } from "../common.js";
import { DateTimeStringSchema } from "./ats-records.js";
import {
  EndUserSchema,
  IntegrationCategorySchema,
  IntegrationStatusSchema,
  QaStatusSchema,
  SetupStatusSchema,
} from "./integration-records.js";

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
export const AtsModelNameSchema = Literals([
  "ats_users",
  "ats_jobs",
  "ats_job_postings",
  "ats_candidates",
  "ats_application_stages",
  "ats_applications",
  "ats_screening_questions",
  "ats_tags",
  "ats_interviews",
  "ats_offers",
  "ats_rejection_reasons",
  "ats_roles",
  "ats_join_candidates_tags",
  "ats_join_jobs_application_stages",
  "ats_join_jobs_screening_questions",
  "ats_join_user_job_role_assignments",
  "ats_join_jobs_users",
  "ats_join_users_roles",
  "ats_join_interviews_users",
]);
export type AtsModelName = Static<typeof AtsModelNameSchema>;

export const SyncStateSchema = Literals(["SUCCEEDED", "CANCELLED", "FAILED", "PARTIALLY_FAILED", "AUTHENTICATION_FAILED", "TIMED_OUT"]);
export type SyncState = Static<typeof SyncStateSchema>;

/** What every event about one integration carries. */
const TOOL = { integration_tool: Type.String(), integration_category: IntegrationCategorySchema };

export const DataChangedDataSchema = Type.Object({
  integration_id: Type.String(),
  ...TOOL,
  changed_models: Type.Array(Type.Object({ name: AtsModelNameSchema })),
});
export type DataChangedData = Static<typeof DataChangedDataSchema>;

export const SyncFinishedDataSchema = Type.Object({
  sync_id: Type.String(),
  sync_state: SyncStateSchema,
  sync_started_at: DateTimeStringSchema,
  sync_ended_at: DateTimeStringSchema,
  sync_duration_seconds: Type.Number(),
  integration_id: Type.String(),
  ...TOOL,
  end_user: EndUserSchema,
  log_url: Type.String(),
});
export type SyncFinishedData = Static<typeof SyncFinishedDataSchema>;

export const IntegrationCreatedDataSchema = Type.Object({
  id: Type.String(),
  tool: Type.String(),
  category: IntegrationCategorySchema,
  end_user: EndUserSchema,
});
export type IntegrationCreatedData = Static<typeof IntegrationCreatedDataSchema>;

export const IntegrationDeletedDataSchema = Type.Composite([
  IntegrationCreatedDataSchema,
  Type.Object({ deleted_at: DateTimeStringSchema }),
]);
export type IntegrationDeletedData = Static<typeof IntegrationDeletedDataSchema>;

export const ConnectionFlowFailedDataSchema = Type.Object({ ...TOOL, end_user: EndUserSchema, log_url: Type.String() });
export type ConnectionFlowFailedData = Static<typeof ConnectionFlowFailedDataSchema>;

export const IntegrationStateChangedDataSchema = Type.Object({
  integration_id: Type.String(),
  ...TOOL,
  end_user: EndUserSchema,
  qa_status: QaStatusSchema,
  setup_status: SetupStatusSchema,
  state: IntegrationStatusSchema,
  updated_at: DateTimeStringSchema,
});
export type IntegrationStateChangedData = Static<typeof IntegrationStateChangedDataSchema>;

/** The schema of each event type's `data`. */
export const WEBHOOK_DATA_SCHEMAS = {
  "data-changed": DataChangedDataSchema,
  "sync-finished": SyncFinishedDataSchema,
  "integration-created": IntegrationCreatedDataSchema,
  "integration-deleted": IntegrationDeletedDataSchema,
  "connection-flow-failed": ConnectionFlowFailedDataSchema,
  "integration-state-changed": IntegrationStateChangedDataSchema,
} as const satisfies Record<WebhookEventType, TSchema>;

export type WebhookDataByType = { [K in WebhookEventType]: Static<(typeof WEBHOOK_DATA_SCHEMAS)[K]> };

/** The schema of one event of type `type` as delivered. */
export const WebhookEventSchema = <K extends WebhookEventType>(type: K) =>
  Type.Object({ id: Type.String(), type: Type.Literal(type), data: WEBHOOK_DATA_SCHEMAS[type] });

/** The schema of each event type's delivery, built once. */
export const WEBHOOK_EVENT_SCHEMAS = Object.fromEntries(WEBHOOK_EVENT_TYPES.map((type) => [type, WebhookEventSchema(type)])) as {
  [K in WebhookEventType]: ReturnType<typeof WebhookEventSchema<K>>;
};

/** One event as delivered: `id` (24 chars) is the deduplication key. */
export type WebhookEvent<K extends WebhookEventType = WebhookEventType> = {
  [T in K]: { id: string; type: T; data: WebhookDataByType[T] };
}[K];
