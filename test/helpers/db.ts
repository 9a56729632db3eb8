import { randomBytes } from "node:crypto";
import { after, before, describe } from "node:test";
import { openDatabase, type Database } from "../../src/shared/db/database.js";
import { migrate } from "../../src/shared/db/migrate.js";
import { dropSchemas } from "../../src/shared/db/pg-schemas.js";

/** The machine's real Postgres (trust auth, database `test`); override with TEST_DATABASE_URL. */
export const TEST_DATABASE_URL = process.env["TEST_DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";
export const TEST_REDIS_URL = process.env["TEST_REDIS_URL"] ?? "redis://127.0.0.1:6379";

export type DbKind = "pglite" | "postgres";
export const DB_KINDS: DbKind[] = ["pglite", "postgres"];

/**
 * Polls (every 20 ms, up to 5 s) until a Postgres backend waits for a lock while running a
 * statement whose text contains `fragment`, or `giveUp()` says to stop waiting; answers whether
 * one was seen. For tests that hold a lock on a second connection and must act only once the
 * code under test is blocked on it.
 */
export async function untilWaitingForLock(
  query: Database["query"],
  fragment: string,
  giveUp: () => boolean = () => false,
): Promise<boolean> {
  for (let i = 0; i < 250 && !giveUp(); i++) {
    const [waiting] = await query<{ n: number }>(
      "select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and pid <> pg_backend_pid() and position($1 in query) > 0",
      [fragment],
    );
    if (waiting!.n > 0) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return false;
}

/** A fresh, migrated database: in-memory PGlite, or a new schema in the real Postgres (dropped after). */
export async function freshDatabase(kind: DbKind): Promise<Database & { dispose(): Promise<void> }> {
  if (kind === "pglite") {
    const database = await openDatabase({ dataDir: "memory://" });
    await migrate(database);
    return Object.assign(database, { dispose: () => database.close() });
  }
  const schema = `t_${process.pid}_${randomBytes(4).toString("hex")}`;
  const database = await openDatabase({ url: TEST_DATABASE_URL, schema, poolSize: 5 });
  await migrate(database);
  return Object.assign(database, {
    dispose: async () => {
      await database.close();
      await dropSchemas(TEST_DATABASE_URL, schema);
    },
  });
}

/**
 * Runs `suite` once per storage kind (PGlite and Postgres), each with its own fresh database.
 * `get()` returns the database inside tests (it is opened in `before`).
 */
export function describeEachDatabase(name: string, suite: (get: () => Database, kind: DbKind) => void): void {
  for (const kind of DB_KINDS) {
    describe(`${name} [${kind}]`, () => {
      let database: (Database & { dispose(): Promise<void> }) | undefined;
      before(async () => {
        database = await freshDatabase(kind);
      });
      after(async () => {
        await database?.dispose();
      });
      suite(() => {
        if (!database) throw new Error("database not opened yet");
        return database;
      }, kind);
    });
  }
}
