import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { setFlagsFromString } from "node:v8";
import type { PGlite } from "@electric-sql/pglite";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from "drizzle-orm/pg-core";
import type { ExtractTablesWithRelations } from "drizzle-orm";
import pg from "pg";
import { pgErrorFields } from "./pg-error.js";
import { initdbOutOfProcess, needsInitdb } from "./pglite-initdb.js";
import { boundPool, connectBoundClient } from "./pool-bounds.js";

/** Drizzle over either driver; repositories are written against this common type. */
export type Db = PgDatabase<PgQueryResultHKT, Record<string, never>>;
export type Tx = PgTransaction<PgQueryResultHKT, Record<string, never>, ExtractTablesWithRelations<Record<string, never>>>;
/** What a repository function accepts: the database, or the caller's transaction. */
export type Queryable = Db | Tx;

/** Run raw SQL text (possibly several statements, no parameters) inside one transaction. */
export type RawExec = (sql: string) => Promise<void>;
export type RawQuery = <R = Record<string, unknown>>(sql: string, params?: unknown[]) => Promise<R[]>;

export type Database = {
  kind: "pglite" | "postgres";
  /** The database for background work (workers, schedules), bounded by DATABASE_STATEMENT_TIMEOUT_MS. */
  db: Db;
  /**
   * The same database for the work of an API request, bounded by the shorter
   * DATABASE_REQUEST_STATEMENT_TIMEOUT_MS (a pool of its own on Postgres; `db` itself on PGlite).
   */
  requestDb: Db;
  /** Schema the tables live in (Postgres); PGlite always uses public. */
  schema: string;
  /**
   * Runs `fn` in one transaction on a single connection, with raw multi-statement access.
   * `unbounded`: no statement timeout (migrations, which may build an index on a large table).
   */
  rawTransaction<T>(fn: (exec: RawExec, query: RawQuery) => Promise<T>, opts?: { unbounded?: boolean }): Promise<T>;
  query: RawQuery;
  ping(): Promise<void>;
  close(): Promise<void>;
  /** The underlying client, for libraries that need it (pg-boss). */
  pglite?: PGlite;
  /** Connection string of a real Postgres (pg-boss opens its own pool with it). */
  url?: string;
  /** A real Postgres's time bounds (pg-boss's pool takes the connect bound too). */
  bounds?: DatabaseBounds;
  pool?: pg.Pool;
};

export type DatabaseOptions = {
  /** postgres://… for a real Postgres; otherwise PGlite. */
  url?: string | undefined;
  /** PGlite data directory; `memory://` or undefined for in-memory. */
  dataDir?: string | undefined;
  /** Postgres schema (search_path); created when missing. */
  schema?: string | undefined;
  poolSize?: number;
  /** How V8 compiles PGlite's WebAssembly (config PGLITE_WASM_COMPILER); `optimizing` when unset. */
  pgliteCompiler?: PgliteCompiler | undefined;
  /** Time bounds of a real Postgres (DATABASE_STATEMENT_TIMEOUT_MS, DATABASE_REQUEST_STATEMENT_TIMEOUT_MS, DATABASE_CONNECT_TIMEOUT_MS). */
  bounds?: Partial<DatabaseBounds> | undefined;
};

/**
 * How long Postgres may take, so a server that stops answering (frozen, partitioned) costs a
 * request a bounded wait and a 503, never a hang. `statementTimeoutMs` is Postgres's own
 * statement_timeout and, a little later (CLIENT_TIMEOUT_MARGIN_MS), the client's: a server that
 * answers nothing cannot cancel anything itself. `connectTimeoutMs` bounds getting a connection:
 * waiting for a free one of the pool and opening a new one. `requestStatementTimeoutMs` is the
 * statement bound of an API request's work (`requestDb`), never longer than `statementTimeoutMs`:
 * a caller waits for its answer, so a frozen server should cost it a few seconds, while a worker's
 * statement (a sync page, a retention purge) may legitimately run longer.
 */
export type DatabaseBounds = { statementTimeoutMs: number; requestStatementTimeoutMs: number; connectTimeoutMs: number };
export const DEFAULT_DATABASE_BOUNDS: DatabaseBounds = {
  statementTimeoutMs: 15_000,
  requestStatementTimeoutMs: 5_000,
  connectTimeoutMs: 5_000,
};
/** The client gives up this long after the server's statement_timeout would have fired. */
export const CLIENT_TIMEOUT_MARGIN_MS = 500;

export type PgliteCompiler = "optimizing" | "baseline";

/**
 * V8's flags for WebAssembly compiled by Liftoff only. With the default dynamic tiering, a function
 * that gets hot is recompiled by TurboFan on a background thread; for one of Postgres's largest
 * functions (wasm-function #2272, 105 KB of body; it gets hot under simple and prepared statements
 * alike) that compilation takes 638 MB of zone memory for about half a second
 * (--trace-wasm-compilation-times), which is the embedded stack's peak RSS. No V8 flag limits
 * TurboFan by function size; turning off inlining, loop peeling or the load elimination, or one
 * compilation task, moved the peak by under 15%. Only keeping TurboFan out removes it. V8 reads these
 * flags when it compiles, so setting them before PGlite's module loads is enough.
 */
const BASELINE_WASM_FLAGS = "--liftoff-only --no-wasm-tier-up --no-wasm-dynamic-tiering";

export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  if (!opts.url) return openPglite(opts.dataDir, opts.pgliteCompiler);
  return openPostgres(opts.url, opts.schema ?? "public", opts.poolSize ?? 10, { ...DEFAULT_DATABASE_BOUNDS, ...opts.bounds });
}

/** PGlite (and its WebAssembly Postgres) is loaded only when it is used: not by a process on DATABASE_URL. */
async function openPglite(dataDir: string | undefined, compiler: PgliteCompiler = "optimizing"): Promise<Database> {
  const onDisk = dataDir && !dataDir.startsWith("memory://") ? dataDir : undefined;
  if (compiler === "baseline") setFlagsFromString(BASELINE_WASM_FLAGS);
  const [{ PGlite }, { drizzle: drizzlePglite }] = await Promise.all([import("@electric-sql/pglite"), import("drizzle-orm/pglite")]);
  // Postgres's default 128 MB buffer pool is sized for a server; the embedded database of one
  // process holds little, and 16 MB cut PGlite's resident memory by ~120 MB (413 -> 292 MB at open).
  const startParams = [...PGlite.defaultStartParams, "-c", "shared_buffers=16MB"];
  if (onDisk) {
    mkdirSync(dirname(onDisk), { recursive: true });
    if (needsInitdb(onDisk)) await initdbOutOfProcess(onDisk, startParams, compiler === "baseline" ? BASELINE_WASM_FLAGS.split(" ") : []);
  }
  const client = await PGlite.create(onDisk, { startParams });
  const db = drizzlePglite(client) as unknown as Db;
  const query: RawQuery = async (sql, params) => (await client.query(sql, params ?? [])).rows as never[];
  return {
    kind: "pglite",
    db,
    // One connection, in process: nothing to freeze apart from the process itself, and no bounds.
    requestDb: db,
    schema: "public",
    pglite: client,
    query,
    rawTransaction: (fn) =>
      client.transaction(async (tx) =>
        fn(
          async (sql) => {
            await tx.exec(sql);
          },
          async (sql, params) => (await tx.query(sql, params ?? [])).rows as never[],
        ),
      ),
    ping: async () => {
      await client.query("select 1");
    },
    close: async () => {
      if (!client.closed) await client.close();
    },
  };
}

async function openPostgres(url: string, schema: string, poolSize: number, bounds: DatabaseBounds): Promise<Database> {
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`invalid schema name ${schema}`);
  const unbounded = new WeakSet<pg.ClientBase>();
  const { pool, stop: stopBounds } = boundedPool(url, schema, poolSize, bounds.statementTimeoutMs, bounds.connectTimeoutMs, unbounded);
  // The request path's own pool, so its shorter statement bound is the connections' own
  // statement_timeout and its sweep's (boundPool): no SET per transaction, no timer per statement,
  // and a frozen server, which cancels nothing itself, still costs a request only this bound.
  const requestStatementMs = Math.min(bounds.requestStatementTimeoutMs, bounds.statementTimeoutMs);
  const requests = boundedPool(url, schema, poolSize, requestStatementMs, bounds.connectTimeoutMs, unbounded);
  if (schema !== "public") await ensureSchema(pool, schema);
  const db = drizzlePg(pool) as unknown as Db;
  db.transaction = transactionsThatRelease(pool);
  const requestDb = drizzlePg(requests.pool) as unknown as Db;
  requestDb.transaction = transactionsThatRelease(requests.pool);
  const query: RawQuery = async (sql, params) => (await pool.query(sql, params)).rows;
  return {
    kind: "postgres",
    db,
    requestDb,
    schema,
    pool,
    url,
    bounds,
    query,
    rawTransaction: async (fn, opts = {}) => {
      const client = await pool.connect();
      // A migration's statements (an index build on a large table) are bounded neither by the
      // server (statement_timeout 0 below) nor by the pool's sweep.
      if (opts.unbounded) unbounded.add(client);
      try {
        await client.query("begin");
        if (opts.unbounded) await client.query("set local statement_timeout = 0");
        const result = await fn(
          async (sql) => {
            await client.query(sql);
          },
          async (sql, params) => (await client.query(sql, params)).rows,
        );
        await client.query("commit");
        return result;
      } catch (err) {
        await client.query("rollback").catch(() => {});
        throw err;
      } finally {
        unbounded.delete(client);
        client.release();
      }
    },
    ping: async () => {
      await pool.query("select 1");
    },
    close: async () => {
      stopBounds();
      requests.stop();
      await Promise.all([pool.end(), requests.pool.end()]);
    },
  };
}

/**
 * A pool of `max` connections whose statements Postgres cancels after `statementTimeoutMs`
 * (statement_timeout, sent once per connection) and the pool's sweep drops
 * CLIENT_TIMEOUT_MARGIN_MS later, and whose checkouts wait `connectTimeoutMs` at most
 * (pool-bounds.ts); `exempt` clients are watched by neither.
 */
function boundedPool(
  url: string,
  schema: string,
  max: number,
  statementTimeoutMs: number,
  connectTimeoutMs: number,
  exempt: WeakSet<pg.ClientBase>,
): { pool: pg.Pool; stop: () => void } {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    options: `-c search_path=${schema}`,
    statement_timeout: statementTimeoutMs,
    // No connectionTimeoutMillis or query_timeout on the pool: boundPool enforces both without a
    // timer per statement and checkout (pool-bounds.ts); new connections keep pg's connect timeout.
    Client: connectBoundClient(connectTimeoutMs),
  });
  const stop = boundPool(pool, { statementMs: statementTimeoutMs + CLIENT_TIMEOUT_MARGIN_MS, checkoutMs: connectTimeoutMs }, exempt);
  // A dropped idle connection must not crash the process; the pool replaces it.
  pool.on("error", () => {});
  // Nor may one dropped while checked out (a transaction between two statements when Postgres
  // stops): pg emits "error" on the client, which without a listener is an uncaught exception that
  // ends the process. The statement in flight fails with the error, or the next one does; the pool
  // discards the client when it is released.
  pool.on("connect", (client) => client.on("error", () => {}));
  return { pool, stop };
}

/**
 * Drizzle's transactions on a pool, with the client always given back. drizzle-orm 0.45's
 * node-postgres session checks a client out and sends BEGIN before its try/finally, so a BEGIN that
 * fails (the connection dropped: Postgres restarting) never releases the client. Every such
 * failure took a connection out of the pool for good, and `pool.end()` then waited forever: the
 * outage chaos test's teardown found two checked-out, unqueryable clients left behind that way.
 * Here the client is checked out and released around drizzle's transaction on that one client
 * (a non-pool session neither checks out nor releases); pg-pool drops it if it is broken. Each
 * pooled client keeps its drizzle instance, so this costs no more than drizzle's own. Upstream:
 * drizzle-team/drizzle-orm#6241 (open, with a fix proposed in #6242); drop this once a release
 * moves BEGIN inside the try.
 */
function transactionsThatRelease(pool: pg.Pool): Db["transaction"] {
  const onClient = new WeakMap<pg.PoolClient, Db>();
  return async (fn, config) => {
    const client = await pool.connect();
    try {
      let db = onClient.get(client);
      if (!db) {
        db = drizzlePg(client) as unknown as Db;
        onClient.set(client, db);
      }
      return await db.transaction(fn, config);
    } finally {
      client.release();
    }
  };
}

/**
 * `create schema if not exists`, run by instances starting together on a fresh schema: the check
 * and the insert into pg_namespace are not atomic, so all but one may fail with a unique violation
 * (23505). The schema exists then, which is all that was asked.
 */
async function ensureSchema(pool: pg.Pool, schema: string): Promise<void> {
  try {
    await pool.query(`create schema if not exists ${schema}`);
  } catch (err) {
    if (pgErrorFields(err).code !== "23505") throw err;
  }
}
