import { type Static, Type } from "@sinclair/typebox";
import type { BaseConfig } from "../../shared/config.js";

const days = (def: number, what: string) =>
  Type.Integer({ minimum: 1, maximum: 3650, default: def, description: `Days ${what} are kept before the retention job deletes them.` });

/**
 * The retention job's variables (services/retention, docs/privacy.md): when it runs, how much one
 * run does, and how long the operational data is kept. The recruiting API's process runs the job
 * (one run per instance set: a pg-boss schedule); the job queue's own retention is read where the
 * queue is opened.
 */
export const RetentionConfigSchema = Type.Object({
  RETENTION_CRON: Type.String({
    default: "23 * * * *",
    description: "Cron (UTC) of the retention job: candidates due by their organisation's policy erased, operational data purged.",
  }),
  RETENTION_MAX_CANDIDATES_PER_RUN: Type.Integer({
    minimum: 1,
    maximum: 100_000,
    default: 2000,
    description: "Candidates one retention run erases at most; the rest are due at the next run.",
  }),
  RETENTION_BATCH_SIZE: Type.Integer({
    minimum: 1,
    maximum: 50_000,
    default: 1000,
    description: "Rows one delete statement of the retention job removes (operational purges and candidate erasure go in batches of this).",
  }),
  RETENTION_MAX_BATCHES_PER_RUN: Type.Integer({
    minimum: 1,
    maximum: 10_000,
    default: 100,
    description: "Batches of each operational table one retention run deletes at most; the rest waits for the next run.",
  }),
  RETENTION_WEBHOOK_EVENTS_DAYS: days(30, "inbound webhook events that are no longer queued"),
  RETENTION_SYNC_RUNS_DAYS: days(90, "finished sync runs"),
  RETENTION_WRITE_BACKS_DAYS: days(180, "finished (done or failed) ATS write-backs, with their notes,"),
  RETENTION_ACTIVITY_DAYS: days(90, "the activity trail's upstream call failures"),
  RETENTION_IDEMPOTENCY_KEYS_HOURS: Type.Integer({
    minimum: 24,
    maximum: 24 * 365,
    default: 48,
    description: "Hours idempotency keys are kept before the retention job deletes them (at least the 24 hours a key answers).",
  }),
  RETENTION_RUNS_DAYS: days(90, "the retention job's own run records"),
  JOB_RETENTION_DAYS: Type.Integer({
    minimum: 1,
    maximum: 365,
    default: 7,
    description: "Days the job queue (pg-boss) keeps completed and failed jobs (each queue's deleteAfterSeconds; pg-boss deletes them).",
  }),
});
export type RetentionConfig = BaseConfig & Static<typeof RetentionConfigSchema>;
