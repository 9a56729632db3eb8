/**
 * Write-back states and the transitions allowed between them, checked in one place (as
 * sync-run.states.ts does for sync runs). A `pending` write-back records each step as it succeeds
 * and stays `pending` until the last; `paused` waits for its integration to be ACTIVE again (a job
 * already queued may still find it ACTIVE and finish it); `done` and `failed` are final: the worker
 * leaves them alone. Only an operator's retry takes a `failed` one back to `pending`
 * (write-back-retry.ts); the steps it recorded stay done.
 */
export const WRITE_BACK_STATES = ["pending", "paused", "done", "failed"] as const;
export type WriteBackState = (typeof WRITE_BACK_STATES)[number];

const TRANSITIONS: Record<WriteBackState, readonly WriteBackState[]> = {
  pending: ["pending", "paused", "done", "failed"],
  paused: ["pending", "paused", "done", "failed"],
  done: [],
  failed: ["pending"],
};

const FINAL: ReadonlySet<WriteBackState> = new Set(["done", "failed"]);

export class InvalidWriteBackTransitionError extends Error {
  override name = "InvalidWriteBackTransitionError";
  constructor(
    readonly from: WriteBackState,
    readonly to: WriteBackState,
  ) {
    super(`write-back cannot move from ${from} to ${to}`);
  }
}

export function assertWriteBackTransition(from: WriteBackState, to: WriteBackState): void {
  if (!TRANSITIONS[from].includes(to)) throw new InvalidWriteBackTransitionError(from, to);
}

export const isFinalWriteBack = (s: WriteBackState) => FINAL.has(s);

/** The states of a write-back still to go out (not final): pending and paused. */
export const OPEN_WRITE_BACK_STATES: readonly WriteBackState[] = WRITE_BACK_STATES.filter((s) => !isFinalWriteBack(s));
