import pg from "pg";

/** The schema the job queue (pg-boss) keeps its tables in, beside the services' own on Postgres. */
export const jobQueueSchema = (schema: string): string => `${schema}_boss`;

/**
 * Drops a Postgres schema of the services together with the job queue's beside it: what a test,
 * benchmark or throwaway deployment that got a schema of its own must remove to leave nothing behind.
 */
export async function dropSchemas(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const name of [schema, jobQueueSchema(schema)]) {
      await client.query(`drop schema if exists ${client.escapeIdentifier(name)} cascade`);
    }
  } finally {
    await client.end();
  }
}
