import { desc, eq } from "drizzle-orm";
import type { Queryable } from "../../shared/db/database.js";
import { writeBacks, type WriteBackRow } from "./sync.schema.js";

export async function listWriteBacks(q: Queryable, integrationId: string, limit = 20): Promise<WriteBackRow[]> {
  return q.select().from(writeBacks).where(eq(writeBacks.integrationId, integrationId)).orderBy(desc(writeBacks.createdAt)).limit(limit);
}
