import { type Static, Type } from "@sinclair/typebox";
import type { BaseConfig } from "../../shared/config.js";

/**
 * The sync module's variables: the sync engine's paging, checkpoints and weekly safety net (the
 * proxy hosts it, so `serve proxy` parses them: src/runtime/config.ts).
 */
export const SyncConfigSchema = Type.Object({
  SYNC_DEFAULT_CANDIDATE_STAGE: Type.String({
    default: "AI Interview",
    description: "Stage a new synced position takes as its candidate_stage when its job has a stage of that name (empty: none).",
  }),
  SYNC_CHECKPOINT_MARGIN_SECONDS: Type.Integer({
    minimum: 0,
    default: 300,
    description: "Overlap of incremental syncs: the next delta reads from the last sync's start minus this, seconds.",
  }),
  SYNC_PAGE_SIZE: Type.Integer({
    minimum: 1,
    maximum: 250,
    default: 250,
    description: "Records per upstream page the sync engine reads (the upstream allows 250).",
  }),
  SYNC_WEEKLY_CRON: Type.String({
    default: "0 3 * * 0",
    description: "Cron (UTC) of the weekly full sync of every active integration, the safety net for lost webhooks.",
  }),
  SYNC_WEEKLY_SPREAD_SECONDS: Type.Integer({
    minimum: 0,
    maximum: 604_800,
    default: 604_800,
    description:
      "The weekly full sync of each integration starts at a stable offset within this many seconds after SYNC_WEEKLY_CRON (from a hash of its id), so the integrations do not all sync at once; 0 starts all at once.",
  }),
  SYNC_ORG_CONCURRENCY: Type.Integer({
    minimum: 1,
    default: 1,
    description:
      "Sync jobs one organisation runs at once across all instances (JOBS_FAIR); its other syncs wait while other organisations' run.",
  }),
  WRITE_BACK_ORG_CONCURRENCY: Type.Integer({
    minimum: 1,
    default: 2,
    description: "Write-back jobs one organisation runs at once across all instances (JOBS_FAIR).",
  }),
  WEBHOOK_ORG_CONCURRENCY: Type.Integer({
    minimum: 1,
    default: 200,
    description:
      "Stored webhook events of one organisation processed at once across all instances (JOBS_FAIR); one worker's batch is 200, so the default leaves the other workers to other organisations.",
  }),
});
export type SyncConfig = BaseConfig & Static<typeof SyncConfigSchema>;
