import { cut } from "../../../shared/text.js";

/**
 * An integration's health at a glance, computed from what Hirebridge already records: its state
 * as the upstream last reported it, its newest sync runs, and the write-backs and webhook events
 * that failed lately. One function decides it (`healthOf`); health-monitor.ts keeps the last known
 * state and detects its changes.
 */
export const HEALTH_STATES = ["ok", "degraded", "broken"] as const;
export type HealthState = (typeof HEALTH_STATES)[number];
export type Health = { state: HealthState; reason: string | null };

/** This many failed sync runs in a row (no success between) make an integration broken; fewer, degraded. */
export const BROKEN_AFTER_FAILED_SYNCS = 3;
/** Write-backs and webhook events that failed this recently make an integration degraded. */
export const RECENT_FAILURE_HOURS = 24;

export type HealthFacts = {
  /** ACTIVE, INVALID or INACTIVE, as the upstream last reported it (null before a report). */
  status: string | null;
  /** The states of its newest finished runs (succeeded or failed), newest first, at most BROKEN_AFTER_FAILED_SYNCS. */
  syncs: readonly ("succeeded" | "failed")[];
  /** The error of its newest failed run. */
  lastSyncError: string | null;
  failedWriteBacks: number;
  lastWriteBackError: string | null;
  failedEvents: number;
  lastEventError: string | null;
};

const RANK: Record<HealthState, number> = { ok: 0, degraded: 1, broken: 2 };
const worse = (a: HealthState, b: HealthState): HealthState => (RANK[b] > RANK[a] ? b : a);
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const last = (error: string | null) => (error ? `; last: ${cut(error, 200)}` : "");

/** Consecutive failed runs, newest first, until the first success. */
function failedInARow(syncs: HealthFacts["syncs"]): number {
  const firstSuccess = syncs.indexOf("succeeded");
  return firstSuccess === -1 ? syncs.length : firstSuccess;
}

/**
 * ok, degraded or broken, and every reason for it, the gravest first. Broken: the credentials are
 * invalid upstream (state INVALID), or BROKEN_AFTER_FAILED_SYNCS syncs failed in a row. Degraded:
 * paused upstream (INACTIVE), the newest sync failed, or write-backs or webhook events failed in
 * the last RECENT_FAILURE_HOURS hours.
 */
export function healthOf(f: HealthFacts): Health {
  const found: { state: HealthState; reason: string }[] = [];
  if (f.status === "INVALID")
    found.push({ state: "broken", reason: "credentials invalid upstream (state INVALID): reconnect the integration" });
  const failed = failedInARow(f.syncs);
  if (failed >= BROKEN_AFTER_FAILED_SYNCS) {
    found.push({ state: "broken", reason: `${failed} consecutive syncs failed${last(f.lastSyncError)}` });
  } else if (failed > 0) {
    found.push({
      state: "degraded",
      reason: `${failed === 1 ? "the last sync" : `${failed} consecutive syncs`} failed${last(f.lastSyncError)}`,
    });
  }
  if (f.status === "INACTIVE") found.push({ state: "degraded", reason: "paused upstream (state INACTIVE): syncs and write-backs wait" });
  if (f.failedWriteBacks > 0) {
    found.push({
      state: "degraded",
      reason: `${plural(f.failedWriteBacks, "write-back")} failed in the last ${RECENT_FAILURE_HOURS} h${last(f.lastWriteBackError)}`,
    });
  }
  if (f.failedEvents > 0) {
    found.push({
      state: "degraded",
      reason: `${plural(f.failedEvents, "webhook event")} failed in the last ${RECENT_FAILURE_HOURS} h${last(f.lastEventError)}`,
    });
  }
  if (found.length === 0) return { state: "ok", reason: null };
  const state = found.reduce<HealthState>((s, r) => worse(s, r.state), "ok");
  const ordered = [...found.filter((r) => r.state === state), ...found.filter((r) => r.state !== state)];
  return { state, reason: ordered.map((r) => r.reason).join("; ") };
}
