import { type Static, Type } from "@sinclair/typebox";
import { DateTime, Nullable, Uuid } from "../common.js";
import { IntegrationIdQuery, NullableOf, OptionalNullable, StringEnum } from "./common.js";

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

export const QuietRunsSchema = Type.Object(
  {
    count: Type.Integer({ minimum: 1 }),
    last_at: DateTime({ description: "When the newest of them started." }),
  },
  {
    title: "QuietRuns",
    description:
      "Incremental runs of the same model after this one (up to the next run listed) that succeeded and changed nothing, folded into it: the upstream's echo of a write-back, say. `include_quiet=true` lists them one by one.",
  },
);
export type QuietRuns = Static<typeof QuietRunsSchema>;

/** A run as the history lists it: with the quiet runs folded into it. */
export const SyncRunEntrySchema = Type.Composite(
  [SyncRunSchema, Type.Object({ quiet_runs: Nullable(QuietRunsSchema, { description: "Null: none folded into it." }) })],
  { title: "SyncRunEntry" },
);
export type SyncRunEntry = Static<typeof SyncRunEntrySchema>;

export const WriteBackSchema = Type.Object(
  {
    id: Uuid(),
    application_id: Type.String(),
    candidate_id: Uuid(),
    candidate_name: Nullable(Type.String(), { description: "The candidate's name when the write-back was made." }),
    position_id: Uuid(),
    position_name: Nullable(Type.String(), { description: "The position's name when the write-back was made." }),
    outcome: StringEnum(["passed", "rejected", "needs_review"] as const),
    target_stage: Nullable(Type.String(), { description: "The stage the position named for the outcome (a stage name, or an id)." }),
    target_stage_name: Nullable(Type.String(), {
      description:
        "The stage's name as the job's stages named it when the write-back resolved it (kept if the stage is renamed or removed later).",
    }),
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
    items: Type.Array(SyncRunEntrySchema, {
      description:
        "Recent sync runs, newest first. An incremental run that changed nothing is folded into the run before it (`quiet_runs`), unless `include_quiet=true`.",
    }),
    write_backs: Type.Array(WriteBackSchema, { description: "Recent interview results written back to the ATS, newest first." }),
  },
  { title: "IntegrationSyncs" },
);
export type IntegrationSyncs = Static<typeof IntegrationSyncsSchema>;

export const IntegrationSyncsQuerySchema = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  include_quiet: Type.Optional(
    Type.Boolean({
      default: false,
      description: "List the incremental runs that changed nothing one by one too (by default they are folded: `quiet_runs`).",
    }),
  ),
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

export const HEALTH_STATES = ["ok", "degraded", "broken"] as const;
export const IntegrationHealthSchema = Type.Object(
  {
    state: StringEnum(HEALTH_STATES, {
      description:
        "ok; degraded (the newest sync failed, paused upstream, write-backs or webhook events failed in the last 24 h); broken (credentials invalid upstream, or 3 syncs failed in a row).",
    }),
    reason: Nullable(Type.String(), { description: "Why, in words, the gravest first; null when ok." }),
  },
  {
    title: "IntegrationHealth",
    description: "Computed from Hirebridge's records: the upstream's state, sync runs, write-backs, webhook events.",
  },
);
export type IntegrationHealth = Static<typeof IntegrationHealthSchema>;

export const IntegrationSummarySchema = Type.Object(
  {
    id: Type.String(),
    display_name: Type.String({
      description:
        "The name people see: the one an operator gave it, else the end user's organisation as the upstream names it, else the id.",
    }),
    organization_name: Nullable(Type.String(), { description: "The end user's organisation as the upstream last named it." }),
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
    health: IntegrationHealthSchema,
  },
  { title: "IntegrationSummary" },
);
export type IntegrationSummary = Static<typeof IntegrationSummarySchema>;

/** `PATCH /integrations/{integration_id}`: what an operator may change of Hirebridge's record of an integration. */
export const IntegrationUpdateSchema = Type.Object(
  {
    display_name: NullableOf(Type.String({ minLength: 1, maxLength: 200, pattern: "\\S" }), {
      description: "The name people see; null goes back to the upstream's organisation name.",
    }),
  },
  { title: "IntegrationUpdate", additionalProperties: false },
);
export type IntegrationUpdate = Static<typeof IntegrationUpdateSchema>;

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
