/**
 * Sync-run states and the transitions allowed between them, checked in one place. `running →
 * running` is the resume of a run whose worker died mid-way (the queue hands the job out again).
 */
export const SYNC_RUN_STATES = ["queued", "running", "succeeded", "failed", "cancelled"] as const;
export type SyncRunState = (typeof SYNC_RUN_STATES)[number];

const TRANSITIONS: Record<SyncRunState, readonly SyncRunState[]> = {
  queued: ["running", "cancelled"],
  running: ["running", "succeeded", "failed", "cancelled", "queued"],
  succeeded: [],
  failed: [],
  cancelled: [],
};

export class InvalidSyncTransitionError extends Error {
  override name = "InvalidSyncTransitionError";
  constructor(
    readonly from: SyncRunState,
    readonly to: SyncRunState,
  ) {
    super(`sync run cannot move from ${from} to ${to}`);
  }
}

export function canTransition(from: SyncRunState, to: SyncRunState): boolean {
  return TRANSITIONS[from].includes(to);
}

export function assertTransition(from: SyncRunState, to: SyncRunState): void {
  if (!canTransition(from, to)) throw new InvalidSyncTransitionError(from, to);
}

export const isFinal = (s: SyncRunState) => TRANSITIONS[s].length === 0;
