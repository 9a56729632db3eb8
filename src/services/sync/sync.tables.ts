import { integer, jsonb, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";

/** migrations/0401_webhooks_and_sync.sql */
export const webhookEvents = pgTable("webhook_events", {
  id: text("id").primaryKey(),
  type: text("type").notNull(),
  integrationId: text("integration_id"),
  orgId: uuid("org_id"),
  payload: jsonb("payload").notNull(),
  status: text("status").$type<"queued" | "processed" | "failed" | "ignored">().notNull().default("queued"),
  message: text("message"),
  attempts: integer("attempts").notNull().default(0),
  lastError: text("last_error"),
  receivedAt: timestamp("received_at", { withTimezone: true }).notNull().defaultNow(),
  processedAt: timestamp("processed_at", { withTimezone: true }),
});
export type WebhookEventRow = typeof webhookEvents.$inferSelect;

export const syncRuns = pgTable("sync_runs", {
  id: uuid("id").primaryKey().defaultRandom(),
  integrationId: text("integration_id").notNull(),
  orgId: uuid("org_id").notNull(),
  model: text("model").$type<SyncModel>().notNull(),
  type: text("type").$type<"FULL" | "DELTA">().notNull(),
  trigger: text("trigger").notNull(),
  state: text("state").$type<"queued" | "running" | "succeeded" | "failed" | "cancelled">().notNull().default("queued"),
  createdCount: integer("created_count").notNull().default(0),
  updatedCount: integer("updated_count").notNull().default(0),
  unlinkedCount: integer("unlinked_count").notNull().default(0),
  skippedCount: integer("skipped_count").notNull().default(0),
  failedCount: integer("failed_count").notNull().default(0),
  pages: integer("pages").notNull().default(0),
  pageCursor: text("page_cursor"),
  followUp: text("follow_up").array().$type<SyncModel[]>().notNull().default([]),
  updatedAfter: timestamp("updated_after", { withTimezone: true }),
  startedAt: timestamp("started_at", { withTimezone: true }),
  finishedAt: timestamp("finished_at", { withTimezone: true }),
  lastError: text("last_error"),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});
export type SyncRunRow = typeof syncRuns.$inferSelect;
export type SyncModel = "jobs" | "applications";

export const syncCheckpoints = pgTable(
  "sync_checkpoints",
  {
    integrationId: text("integration_id").notNull(),
    model: text("model").$type<SyncModel>().notNull(),
    syncedUntil: timestamp("synced_until", { withTimezone: true }).notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.integrationId, t.model] })],
);

export const writeBacks = pgTable("write_backs", {
  id: uuid("id").primaryKey().defaultRandom(),
  eventKey: text("event_key").notNull().unique(),
  orgId: uuid("org_id").notNull(),
  integrationId: text("integration_id").notNull(),
  applicationId: text("application_id").notNull(),
  positionId: uuid("position_id").notNull(),
  candidateId: uuid("candidate_id").notNull(),
  interviewId: uuid("interview_id").notNull(),
  outcome: text("outcome").$type<"passed" | "rejected" | "needs_review">().notNull(),
  targetStage: text("target_stage"),
  targetStageId: text("target_stage_id"),
  /** migrations/0411_write_back_names.sql */
  targetStageName: text("target_stage_name"),
  candidateName: text("candidate_name"),
  positionName: text("position_name"),
  /** migrations/0404: set on a corrective write-back (a graded result corrected), with why. */
  correctionReason: text("correction_reason"),
  /** migrations/0601: set on a write-back of an assessment order's result (written to the order, not the stage). */
  assessmentOrderId: text("assessment_order_id"),
  state: text("state").$type<"pending" | "done" | "failed" | "paused">().notNull().default("pending"),
  stageMovedAt: timestamp("stage_moved_at", { withTimezone: true }),
  linkAddedAt: timestamp("link_added_at", { withTimezone: true }),
  noteAddedAt: timestamp("note_added_at", { withTimezone: true }),
  attempts: integer("attempts").notNull().default(0),
  lastError: text("last_error"),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});
export type WriteBackRow = typeof writeBacks.$inferSelect;

/** migrations/0410_integration_health.sql */
export const integrationHealth = pgTable("integration_health", {
  integrationId: text("integration_id").primaryKey(),
  orgId: uuid("org_id").notNull(),
  state: text("state").$type<"ok" | "degraded" | "broken">().notNull().default("ok"),
  reason: text("reason"),
  changedAt: timestamp("changed_at", { withTimezone: true }).notNull().defaultNow(),
});

/** migrations/0412_upstream_call_failures.sql */
export const upstreamCallFailures = pgTable("upstream_call_failures", {
  id: uuid("id").primaryKey().defaultRandom(),
  integrationId: text("integration_id").notNull(),
  orgId: uuid("org_id").notNull(),
  source: text("source").$type<"proxy" | "sync" | "write-back">().notNull(),
  operation: text("operation").notNull(),
  upstreamStatus: integer("upstream_status"),
  error: text("error").notNull(),
  requestId: text("request_id"),
  writeBackId: uuid("write_back_id"),
  count: integer("count").notNull().default(1),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  lastAt: timestamp("last_at", { withTimezone: true }).notNull().defaultNow(),
});
export type UpstreamCallFailureRow = typeof upstreamCallFailures.$inferSelect;
