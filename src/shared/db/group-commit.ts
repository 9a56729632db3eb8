import type { Database } from "./database.js";

/** One item's answer from a commit: its value, or the error its request fails with. */
export type Settled<O> = { ok: true; value: O } | { ok: false; error: unknown };

/** Runs `work` for one item of a batch: its failure becomes that item's answer, not the batch's. */
export async function settle<O>(work: () => Promise<O>): Promise<Settled<O>> {
  try {
    return { ok: true, value: await work() };
  } catch (error) {
    return { ok: false, error };
  }
}

/**
 * Commits a group commit keeps under way at once on `kind`: PGlite has one connection, so a second
 * would only queue behind the first; on Postgres a second batch gathers while the first commits
 * (`onPostgres`: more where a commit's wait, not the server's CPU, bounds the throughput).
 */
export const commitsInFlight = (kind: Database["kind"], onPostgres = 2): number => (kind === "pglite" ? 1 : onPostgres);

export type GroupCommitOptions<I, O> = {
  /** Most items in one commit. */
  maxBatch: number;
  /** Commits under way at once (PGlite has one connection: 1). */
  maxInFlight: number;
  /**
   * Commits the items together and answers one outcome per item, in their order. Throwing fails
   * every item of the batch with that error.
   */
  commit: (items: I[]) => Promise<Settled<O>[]>;
};

type Pending<I, O> = { item: I; resolve: (o: O) => void; reject: (e: unknown) => void };

/**
 * Group commit: items submitted while a commit is under way wait for the next one, and each commit
 * takes all of them at once (up to `maxBatch`). A commit's fixed cost (the round trip, the
 * statement, the transaction and its WAL flush) is then paid once per batch instead of once per
 * request, and every caller is answered only after the commit that holds its item. An item on an
 * idle server is committed on the next turn of the event loop: it waits for nothing but the
 * requests already being read.
 */
export function createGroupCommit<I, O>(opts: GroupCommitOptions<I, O>) {
  let pending: Pending<I, O>[] = [];
  let inFlight = 0;
  let scheduled = false;

  function schedule(): void {
    if (scheduled || inFlight >= opts.maxInFlight || pending.length === 0) return;
    scheduled = true;
    // setImmediate: requests whose bodies arrived in the same I/O turn join this batch.
    setImmediate(() => {
      scheduled = false;
      const batch = pending.slice(0, opts.maxBatch);
      pending = pending.slice(batch.length);
      inFlight++;
      void run(batch).finally(() => {
        inFlight--;
        schedule();
      });
      schedule();
    });
  }

  async function run(batch: Pending<I, O>[]): Promise<void> {
    let outcomes: Settled<O>[];
    try {
      outcomes = await opts.commit(batch.map((p) => p.item));
    } catch (err) {
      for (const p of batch) p.reject(err);
      return;
    }
    batch.forEach((p, i) => {
      const outcome = outcomes[i];
      if (!outcome) p.reject(new Error("group commit: no outcome for an item"));
      else if (outcome.ok) p.resolve(outcome.value);
      else p.reject(outcome.error);
    });
  }

  return {
    /** Commits the item with the others arriving now; settles after the commit that holds it. */
    submit(item: I): Promise<O> {
      return new Promise<O>((resolve, reject) => {
        pending.push({ item, resolve, reject });
        schedule();
      });
    },
  };
}
