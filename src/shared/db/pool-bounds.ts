import pg from "pg";

/**
 * A pg client whose new connections give up after `connectTimeoutMs` (pg's own connect timeout),
 * while the pool it belongs to is given no connectionTimeoutMillis: pg-pool reads that one option
 * for both, and on the pool it arms a timer for every checkout, an idle client's included.
 */
export function connectBoundClient(connectTimeoutMs: number): typeof pg.Client {
  return class extends pg.Client {
    constructor(config: pg.ClientConfig) {
      super({ ...config, connectionTimeoutMillis: connectTimeoutMs });
    }
  };
}

/** pg's and pg-pool's fields the sweeper reads: pinned with pg (package.json), covered by the freeze test. */
type WatchedClient = pg.Client & { _getActiveQuery(): object | null | undefined; connection: { stream: { destroy(e: Error): void } } };
type PendingItem = { callback: (err: Error) => void; timedOut?: boolean };
type WatchedPool = { _clients: WatchedClient[]; _pendingQueue: PendingItem[] };

export type PoolBoundsOptions = {
  /** How long a statement's answer may take on the client before its connection is dropped. */
  statementMs: number;
  /** How long a checkout may wait for a free connection of a full pool. */
  checkoutMs: number;
};

/** The sweep's period: a tenth of the shorter bound, between 50 ms and 1 s. */
export const sweepPeriodMs = (o: PoolBoundsOptions) => Math.min(1000, Math.max(50, Math.floor(Math.min(o.statementMs, o.checkoutMs) / 10)));

/**
 * Bounds on a pg pool that cost nothing per statement: one timer per pool looks at what is in
 * flight a few times per bound, instead of a timer (and its closures) armed and cleared around
 * every statement and checkout. Those per-statement timers (pg's query_timeout, pg-pool's
 * connectionTimeoutMillis) and the client wrapper that reacted to them kept each statement's
 * objects alive long enough to be promoted: under the webhook intake's load (bench/README.md,
 * round 13) they brought 16 mark-compacts instead of 4 and the scavenges' time up by a third.
 *
 * - A statement still the client's active one after `statementMs` (seen by two sweeps that far
 *   apart) has its connection destroyed with an ETIMEDOUT error: pg fails it and whatever is
 *   queued behind it, and the pool discards the client. Postgres's own statement_timeout cancels
 *   a slow statement first; this is for a server that answers nothing at all (frozen, partitioned).
 * - A checkout waiting in a full pool's queue for `checkoutMs` fails with pg-pool's own message.
 *
 * The first sweep that sees a statement or a checkout starts its clock, so each is ended between
 * its bound and two sweep periods after it. `exempt` clients (a migration's) are not watched.
 * Answers the function that stops the sweeps.
 */
export function boundPool(pool: pg.Pool, o: PoolBoundsOptions, exempt: WeakSet<pg.ClientBase>): () => void {
  const watched = pool as unknown as WatchedPool;
  const statements = new WeakMap<WatchedClient, { query: object; since: number }>();
  const waits = new WeakMap<PendingItem, number>();
  const sweep = () => {
    const now = Date.now();
    for (const client of watched._clients) {
      const query = exempt.has(client) ? null : client._getActiveQuery();
      if (!query) continue;
      const seen = statements.get(client);
      if (seen?.query !== query) statements.set(client, { query, since: now });
      else if (now - seen.since >= o.statementMs) dropConnection(client);
    }
    const queue = watched._pendingQueue;
    for (let i = queue.length - 1; i >= 0; i--) {
      const item = queue[i]!;
      const since = waits.get(item);
      if (since === undefined) waits.set(item, now);
      else if (now - since >= o.checkoutMs) {
        queue.splice(i, 1);
        item.timedOut = true;
        item.callback(new Error("timeout exceeded when trying to connect"));
      }
    }
  };
  const timer = setInterval(sweep, sweepPeriodMs(o));
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Destroyed with an error: pg marks the client unqueryable and fails what is queued on it with it,
 * so a ROLLBACK waiting behind the stuck statement fails at once instead of queueing for ever, and
 * a timed-out BEGIN cannot leave the connection inside a transaction once the server wakes.
 */
function dropConnection(client: WatchedClient): void {
  const dropped = Object.assign(new Error("Postgres did not answer a statement in time; connection dropped"), { code: "ETIMEDOUT" });
  client.connection.stream.destroy(dropped);
}
