import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Database } from "./database.js";

export const MIGRATIONS_DIR = fileURLToPath(new URL("../../../migrations/", import.meta.url));

/** Arbitrary constant: every instance starting at once serialises on it, so each file runs once. */
const MIGRATION_LOCK = 72_100_417;

/**
 * Applies the numbered SQL files of `migrations/` in name order, each once, recorded in
 * `hirebridge_migrations`. The same files run on PGlite and Postgres. All pending files apply in one
 * transaction under an advisory lock, so instances starting together neither race nor half-apply.
 * (Drizzle's migrator wants drizzle-kit's journal and takes no lock; plain SQL files reviewed by
 * people are the contract here.)
 */
export async function migrate(database: Database, dir = MIGRATIONS_DIR): Promise<string[]> {
  const files = readdirSync(dir)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .sort();
  return database.rawTransaction(
    async (exec, query) => {
      await query(`select pg_advisory_xact_lock(${MIGRATION_LOCK})`);
      await exec(
        `create table if not exists hirebridge_migrations (version text primary key, applied_at timestamptz not null default now())`,
      );
      const done = new Set((await query<{ version: string }>("select version from hirebridge_migrations")).map((r) => r.version));
      const applied: string[] = [];
      for (const file of files) {
        const version = file.replace(/\.sql$/, "");
        if (done.has(version)) continue;
        await exec(readFileSync(`${dir}/${file}`, "utf8"));
        await query("insert into hirebridge_migrations (version) values ($1)", [version]);
        applied.push(version);
      }
      return applied;
    },
    { unbounded: true },
  );
}
