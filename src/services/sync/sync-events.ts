import type { Queryable } from "../../shared/db/database.js";
import type { EventsOut, OutboundEvent } from "../../shared/ports/events-out.js";
import type { HealthChange } from "./health/health-monitor.js";
import type { SyncRunRow, WriteBackRow } from "./sync.tables.js";
import { toSyncRun, toWriteBack } from "./sync-views.js";

/** The outbound events of the sync module, recorded in the transaction of their change (the EventsOut port). */
export type SyncEvents = EventsOut<Queryable>;

/** An incremental run that succeeded and changed nothing (the history's quiet run, sync-runs.repository.ts). */
const changedNothing = (run: SyncRunRow) =>
  run.state === "succeeded" &&
  run.type === "DELTA" &&
  run.createdCount + run.updatedCount + run.unlinkedCount + run.skippedCount + run.failedCount === 0;

/**
 * `sync_run.finished`: the run as `GET /integrations/{id}/syncs` shows it, with its integration;
 * a run that changed nothing is `sync_run.unchanged` instead, delivered only to endpoints that list it.
 */
export const runFinished = (run: SyncRunRow): OutboundEvent => ({
  orgId: run.orgId,
  type: changedNothing(run) ? "sync_run.unchanged" : "sync_run.finished",
  data: { ...toSyncRun(run), integration_id: run.integrationId },
});

/** `write_back.succeeded` or `write_back.failed`: the write-back as the sync history shows it. */
export const writeBackSettled = (wb: WriteBackRow): OutboundEvent => ({
  orgId: wb.orgId,
  type: wb.state === "done" ? "write_back.succeeded" : "write_back.failed",
  data: { ...toWriteBack(wb), integration_id: wb.integrationId },
});

/** `integration.health_changed`: the new health (as the integrations list shows it) and the state before. */
export const healthChanged = (change: HealthChange): OutboundEvent => ({
  orgId: change.orgId,
  type: "integration.health_changed",
  data: { integration_id: change.integrationId, health: { state: change.to, reason: change.reason }, previous_state: change.from },
});
