import assert from "node:assert/strict";
import type { Database } from "../../src/shared/db/database.js";

/**
 * Every row of every text-like column of the schema's tables, and of the job queue's (`<schema>_boss`; `pgboss` on PGlite), that
 * contains `needle` (case-insensitive), as `table.column`: the erasure tests' proof that personal data is gone.
 */
export async function findEverywhere(db: Database, needle: string): Promise<string[]> {
  const columns = await db.query<{ table_schema: string; table_name: string; column_name: string }>(
    `select c.table_schema, c.table_name, c.column_name from information_schema.columns c
       join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name and t.table_type = 'BASE TABLE'
      where c.table_schema in (current_schema(), current_schema() || '_boss', 'pgboss')
        and c.data_type in ('text', 'character varying', 'character', 'json', 'jsonb', 'ARRAY')
      order by 1, 2`,
  );
  assert.ok(columns.length > 40, `the schema's text columns (${columns.length})`);
  assert.ok(
    columns.some((c) => c.table_schema.endsWith("_boss") || c.table_schema === "pgboss"),
    "the job queue's tables",
  );
  const found: string[] = [];
  for (const { table_schema, table_name, column_name } of columns) {
    const [row] = await db.query<{ n: number }>(
      `select count(*)::int as n from "${table_schema}"."${table_name}" where position(lower($1) in lower("${column_name}"::text)) > 0`,
      [needle],
    );
    if (row!.n > 0) found.push(`${table_name}.${column_name}`);
  }
  return found;
}
