import { type Static, Type } from "@sinclair/typebox";
import { DateTime, Nullable, Uuid } from "../common.js";
import { IntegrationIdQuery, OptionalNullable, StringEnum } from "./common.js";

import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from "../upstream/webhooks.js";

/** The six upstream event kinds, each with its receiver at /webhooks/upstream/<kind>. */
export const WEBHOOK_KINDS = WEBHOOK_EVENT_TYPES;
export type WebhookKind = WebhookEventType;

export const WebhookQuerySchema = Type.Object({
  webhook_secret: OptionalNullable(Type.String(), {
    description: "The shared webhook secret, for senders that cannot sign (alternative to the signature header).",
  }),
});

/**
 * `received` is true once the event is stored durably (deduplicated on its `id`). `processed` is
 * true once the event's work is done (or there was nothing to do), false while it waits in the job
 * queue; `message` says which, and for a repeated delivery that it was one.
 */
export const WebhookResponseSchema = Type.Object(
  {
    received: Type.Boolean({ default: true }),
    processed: Type.Boolean({ default: false }),
    message: Nullable(Type.String()),
  },
  { title: "WebhookResponse" },
);
export type WebhookResponse = Static<typeof WebhookResponseSchema>;

export const SYNC_ALL_TYPES = ["JOBS", "APPLICATIONS"] as const;
export const SyncAllQuerySchema = Type.Object({
  integration_id: IntegrationIdQuery,
  type: OptionalNullable(StringEnum(SYNC_ALL_TYPES), { description: "JOBS or APPLICATIONS; absent: both (jobs first)." }),
});
export type SyncAllQuery = Static<typeof SyncAllQuerySchema>;

export const SyncRunSchema = Type.Object(
  {
    id: Uuid(),
    model: StringEnum(["jobs", "applications"] as const),
    type: StringEnum(["FULL", "DELTA"] as const),
    trigger: Type.String({ description: "What started it: integration-created, data-changed, sync-finished, sync-all, weekly, …" }),
    state: StringEnum(["queued", "running", "succeeded", "failed", "cancelled"] as const),
    created: Type.Integer(),
    updated: Type.Integer(),
    unlinked: Type.Integer(),
    skipped: Type.Integer({
      description:
        "Records not synced: applications without an email, positions whose candidate stage is not on the job, emails already taken.",
    }),
    failed: Type.Integer(),
    pages: Type.Integer(),
    updated_after: Nullable(DateTime(), { description: "The checkpoint an incremental run read from." }),
    created_at: DateTime(),
    started_at: Nullable(DateTime()),
    finished_at: Nullable(DateTime()),
    duration_ms: Nullable(Type.Integer()),
    last_error: Nullable(Type.String()),
  },
  { title: "SyncRun" },
);
export type SyncRun = Static<typeof SyncRunSchema>;

export const WriteBackSchema = Type.Object(
  {
    id: Uuid(),
    application_id: Type.String(),
    candidate_id: Uuid(),
    outcome: StringEnum(["passed", "rejected", "needs_review"] as const),
    target_stage: Nullable(Type.String()),
    state: StringEnum(["pending", "done", "failed", "paused"] as const),
    stage_moved_at: Nullable(DateTime()),
    link_added_at: Nullable(DateTime()),
    note_added_at: Nullable(DateTime()),
    attempts: Type.Integer(),
    last_error: Nullable(Type.String()),
    created_at: DateTime(),
  },
  { title: "WriteBack" },
);
export type WriteBack = Static<typeof WriteBackSchema>;

export const IntegrationSyncsSchema = Type.Object(
  {
    items: Type.Array(SyncRunSchema, { description: "Recent sync runs, newest first." }),
    write_backs: Type.Array(WriteBackSchema, { description: "Recent interview results written back to the ATS, newest first." }),
  },
  { title: "IntegrationSyncs" },
);
export type IntegrationSyncs = Static<typeof IntegrationSyncsSchema>;

export const IntegrationSyncsQuerySchema = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
});

/** `GET /integrations`: the caller's organisation's integrations, oldest first, cursor-paginated like the recruiting API's lists. */
export const IntegrationListQuerySchema = Type.Object(
  {
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 500, description: "Page size; without it the answer holds every integration." }),
    ),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 400, description: "`next_cursor` of the previous page (opaque)." })),
  },
  { description: "Unknown query parameters are ignored." },
);
export type IntegrationListQuery = Static<typeof IntegrationListQuerySchema>;

export const IntegrationSummarySchema = Type.Object(
  {
    id: Type.String(),
    tool: Type.String({ description: "The upstream's tool id (e.g. `greenhouse`)." }),
    category: Nullable(Type.String(), { description: "HRIS, ATS or ASSESSMENT, as last reported by the upstream." }),
    state: Nullable(Type.String(), {
      description: "ACTIVE, INVALID or INACTIVE, as last reported by the upstream (null before the first report).",
    }),
    setup_status: Nullable(Type.String()),
    created_at: DateTime({ description: "When Hirebridge first recorded the integration." }),
    last_sync: Type.Object(
      { jobs: Nullable(SyncRunSchema), applications: Nullable(SyncRunSchema) },
      { description: "The newest sync run of each model (null: none yet)." },
    ),
    pending_write_backs: Type.Integer({ description: "Interview results not yet written back to the ATS (pending or paused)." }),
  },
  { title: "IntegrationSummary" },
);
export type IntegrationSummary = Static<typeof IntegrationSummarySchema>;

export const IntegrationListSchema = Type.Object(
  {
    items: Type.Array(IntegrationSummarySchema),
    next_cursor: Type.Optional(
      Nullable(Type.String(), { description: "Cursor of the next page; null on the last one. Present only when `limit` was given." }),
    ),
  },
  { title: "IntegrationList" },
);
export type IntegrationList = Static<typeof IntegrationListSchema>;
