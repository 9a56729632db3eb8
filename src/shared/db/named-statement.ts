import { createHash } from "node:crypto";
import type { PGlite } from "@electric-sql/pglite";
import type pg from "pg";
import type { Db } from "./database.js";

/** A parameter of a named statement: sent as text, typed by the statement (`$1::uuid`). */
export type StatementValue = string | null;

/** Runs the statement on a database handle (not a transaction) and answers its rows. */
export type NamedStatement<R> = (db: Db, values: StatementValue[]) => Promise<R[]>;

type PgliteModule = typeof import("@electric-sql/pglite");

/**
 * A named prepared statement, parsed and planned once per connection, for the requests every page
 * load makes. On Postgres, node-postgres prepares it once per pooled connection and then sends only
 * Bind/Execute. On PGlite, `client.query()` sends Parse, Describe, Bind, Describe, Execute and Sync
 * as six calls into the WebAssembly Postgres and parses and plans the text every time (measured
 * for GET position: 294 µs a query, 405 µs through Drizzle, against 105 µs for Bind, Describe,
 * Execute and Sync of a named statement in one call), so the statement is parsed once per PGlite
 * instance and each call is one message, under PGlite's own locks so that it never runs inside
 * another caller's transaction. Rows are objects keyed by column name, values parsed by the
 * driver's defaults (timestamptz → Date, arrays → arrays; cast int8 to text for the same answer on
 * both drivers).
 */
export function namedStatement<R>(name: string, text: string): NamedStatement<R> {
  const preparedOn = new WeakSet<PGlite>();
  return async (db, values) => {
    const client = (db as unknown as { $client: unknown }).$client;
    if (isPglite(client)) return runOnPglite<R>(client, preparedOn, name, text, values);
    // A transaction handle has no $client (and would need its own connection's statement).
    if (typeof (client as pg.Pool | undefined)?.query !== "function")
      throw new Error(`${name}: a named statement runs on the database handle, not in a transaction`);
    const result = await (client as pg.Pool).query<R & pg.QueryResultRow>({ name, text, values });
    return result.rows;
  };
}

const isPglite = (client: unknown): client is PGlite =>
  typeof client === "object" && client !== null && "execProtocol" in client && "_runExclusiveQuery" in client;

let pgliteModule: PgliteModule | undefined;

async function runOnPglite<R>(
  client: PGlite,
  preparedOn: WeakSet<PGlite>,
  name: string,
  text: string,
  values: StatementValue[],
): Promise<R[]> {
  // Loaded on first use (PGlite is loaded only by processes that use it), then kept.
  pgliteModule ??= await import("@electric-sql/pglite");
  const { serialize } = pgliteModule.protocol;
  await client._checkReady();
  // The same two locks as client.query(): not inside someone else's transaction, one message at a time.
  return client._runExclusiveTransaction(() =>
    client._runExclusiveQuery(async () => {
      if (!preparedOn.has(client)) {
        await client.execProtocol(concat([serialize.parse({ name, text }), serialize.sync()]), { syncToFs: false });
        preparedOn.add(client);
      }
      const message = concat([
        serialize.bind({ statement: name, values }),
        serialize.describe({ type: "P" }),
        serialize.execute({}),
        serialize.sync(),
      ]);
      // An error (a bad parameter) answers after Sync: the connection is ready again when this throws.
      const { messages } = await client.execProtocol(message, { syncToFs: false });
      if (!client.isInTransaction()) await client.syncToFs();
      const [result] = pgliteModule!.parse.parseResults(messages, client.parsers, { rowMode: "object" });
      return (result?.rows ?? []) as R[];
    }),
  );
}

function concat(parts: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const p of parts) length += p.length;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

const byText = new Map<string, NamedStatement<unknown>>();

/**
 * `namedStatement` for a statement whose text is assembled at run time from parts another module
 * supplies (e.g. the outbox's WITH item): one per distinct text in the process, its name suffixed
 * with a hash of the text so that two texts never share a prepared statement's name.
 */
export function namedStatementOf<R>(name: string, text: string): NamedStatement<R> {
  const key = `${name}\u0000${text}`;
  let statement = byText.get(key);
  if (!statement) {
    statement = namedStatement<unknown>(`${name}_${createHash("sha1").update(text).digest("hex").slice(0, 10)}`, text);
    byText.set(key, statement);
  }
  return statement as NamedStatement<R>;
}
