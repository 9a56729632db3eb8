/**
 * Simulated upstream syncs: a sync runs for a while (SandboxDeps.syncDurationMs), then sends
 * sync-finished with the outcome the integration's state implies, and data-changed for what it
 * "found": every model on FULL, the models changed since the last sync on DELTA.
 */
import type { SyncType } from "../../contracts/upstream/index.js";
import { announceChange, type SandboxContext } from "./context.js";
import { newId } from "./data/random.js";
import type { Integration } from "./store/sandbox-store.js";
import { ALL_ATS_MODELS, syncFinished } from "./webhooks/events.js";

const DEFAULT_SYNC_MS = 1500;

/** Starts a sync unless one is queued; answers the queued or the new one. */
export function startSync(ctx: SandboxContext, integration: Integration, type: SyncType, origin: string) {
  const pending = integration.sync.pending;
  if (pending) return { already_queued: true, sync_id: pending.id, type: pending.type };
  const sync = { id: newId(), type, startedAt: ctx.clock() };
  integration.sync.pending = sync;
  const timer = setTimeout(() => {
    ctx.timers.delete(timer);
    finishSync(ctx, integration, origin);
  }, ctx.deps.syncDurationMs ?? DEFAULT_SYNC_MS);
  ctx.timers.add(timer);
  return { already_queued: false, sync_id: sync.id, type };
}

function finishSync(ctx: SandboxContext, integration: Integration, origin: string): void {
  const sync = integration.sync.pending;
  if (!sync || !ctx.store.get(integration.id)) return;
  integration.sync.pending = null;
  const state = integration.status === "INVALID" ? "AUTHENTICATION_FAILED" : integration.status === "INACTIVE" ? "FAILED" : "SUCCEEDED";
  integration.sync.history.push({
    id: sync.id,
    type: sync.type,
    state,
    started_at: new Date(sync.startedAt).toISOString(),
    ended_at: new Date(ctx.clock()).toISOString(),
  });
  if (integration.sync.history.length > 20) integration.sync.history.shift();
  ctx.changed();
  ctx.webhooks.send("sync-finished", syncFinished(integration, sync, ctx.clock(), state, origin));
  if (state !== "SUCCEEDED" || integration.category !== "ATS") return;
  const models = sync.type === "FULL" ? ALL_ATS_MODELS : [...integration.sync.changedSinceSync];
  if (models.length > 0) announceChange(ctx, integration, models);
  integration.sync.changedSinceSync.clear();
}
