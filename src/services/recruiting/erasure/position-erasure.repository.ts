import { sql } from "drizzle-orm";
import type { Queryable } from "../../../shared/db/database.js";
import { rowsOf } from "./erasure.repository.js";

/** The statements of a position's erasure (erasure/position-erasure.ts composes them with the candidates' erasure). */

/** The organisation's position, locked for update (its state), or null. */
export async function lockPosition(tx: Queryable, orgId: string, positionId: string): Promise<{ state: string } | null> {
  const [row] = rowsOf<{ state: string }>(
    await tx.execute(sql`select state from positions where organization_id = ${orgId} and id = ${positionId} for update`),
  );
  return row ?? null;
}

/** Up to `limit` ids of the position's candidates. */
export async function candidateIdsOfPosition(tx: Queryable, orgId: string, positionId: string, limit: number): Promise<string[]> {
  return rowsOf<{ id: string }>(
    await tx.execute(
      sql`select id from candidates where organization_id = ${orgId} and position_id = ${positionId} order by id limit ${limit}`,
    ),
  ).map((r) => r.id);
}

/** Unlinks the assessment orders from the position (the order keeps its package id). */
export async function unlinkOrdersOfPosition(tx: Queryable, orgId: string, positionId: string): Promise<number> {
  return rowsOf(
    await tx.execute(
      sql`update assessment_orders set position_id = null where org_id = ${orgId} and position_id = ${positionId} returning 1`,
    ),
  ).length;
}

/** Deletes the position row; whether it was there. */
export async function deletePositionRow(tx: Queryable, orgId: string, positionId: string): Promise<boolean> {
  return (
    rowsOf(await tx.execute(sql`delete from positions where organization_id = ${orgId} and id = ${positionId} returning 1`)).length > 0
  );
}
