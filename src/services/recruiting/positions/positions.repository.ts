import { and, asc, eq, getTableColumns, sql, type SQL } from "drizzle-orm";
import { keysetPage, keysetTimestamp, type KeysetCursor } from "../../../shared/db/keyset-cursor.js";
import type { Position, PositionState, PositionUpdate } from "../../../contracts/recruiting/positions.js";
import type { Db, Queryable } from "../../../shared/db/database.js";
import { toColumns, type FieldsOf } from "../columns.js";
import { positions, type PositionRow } from "./positions.tables.js";
import { namedStatement } from "../../../shared/db/named-statement.js";

type PositionInsert = typeof positions.$inferInsert;
type WritableKey = Exclude<keyof PositionUpdate, "id" | "created_at" | "updated_at">;

/** API field → column; the read-only fields are not in it, so a body can never set them. */
const WRITABLE = {
  name: true,
  state: true,
  department: true,
  location: true,
  min_score: true,
  role_description: true,
  position_calender_link: true,
  accepted_languages: true,
  agent_id: true,
  candidate_stage: true,
  passed_stage: true,
  rejected_stage: true,
  needs_reviewed_stage: true,
  auto_update_stages: true,
  upstream_job_id_id: true,
  upstream_integration_id: true,
} as const satisfies Record<WritableKey & FieldsOf<PositionInsert>, true>;

/** The columns for the fields present in `body` (absent fields are left alone). */
function positionColumns(body: PositionUpdate): Partial<PositionInsert> {
  return toColumns<PositionInsert>(body, WRITABLE);
}

export function toPosition(row: PositionRow): Position {
  return {
    id: row.id,
    name: row.name,
    state: row.state as PositionState,
    department: row.department,
    location: row.location,
    ...(row.minScore === null ? {} : { min_score: row.minScore }),
    role_description: row.roleDescription,
    position_calender_link: row.positionCalenderLink,
    created_at: row.createdAt.toISOString(),
    accepted_languages: row.acceptedLanguages,
    updated_at: row.updatedAt.toISOString(),
    ...(row.agentId === null ? {} : { agent_id: row.agentId }),
    candidate_stage: row.candidateStage,
    passed_stage: row.passedStage,
    rejected_stage: row.rejectedStage,
    needs_reviewed_stage: row.needsReviewedStage,
    auto_update_stages: row.autoUpdateStages,
    upstream_job_id_id: row.upstreamJobIdId,
    upstream_integration_id: row.upstreamIntegrationId,
  };
}

export async function createPosition(q: Queryable, orgId: string, body: PositionUpdate & { name: string }): Promise<PositionRow> {
  const [row] = await q
    .insert(positions)
    .values({ ...positionColumns(body), name: body.name, organizationId: orgId })
    .returning();
  return row!;
}

const POSITION_COLUMNS = Object.entries(getTableColumns(positions)).map(([key, column]) => [key, column.name] as const);

const findStatement = namedStatement<Record<string, unknown>>(
  "recruiting_find_position",
  `select ${POSITION_COLUMNS.map(([, name]) => `"${name}"`).join(", ")} from positions where organization_id = $1::uuid and id = $2::uuid`,
);

/**
 * The org's position; a named prepared statement, since every client page load asks for one (on
 * PGlite that took GET position from 405 to ~105 µs of database call, see namedStatement).
 */
export async function findPosition(db: Db, orgId: string, id: string): Promise<PositionRow | null> {
  const [row] = await findStatement(db, [orgId, id]);
  if (!row) return null;
  const position: Record<string, unknown> = {};
  for (const [key, name] of POSITION_COLUMNS) position[key] = row[name];
  return position as PositionRow;
}

/**
 * Whether the position exists in the org. `lock` takes a key-share lock: the row cannot be deleted
 * before the caller's transaction ends, yet position updates are not blocked.
 */
export async function positionExists(q: Queryable, orgId: string, id: string, lock = false): Promise<boolean> {
  const query = q
    .select({ id: positions.id })
    .from(positions)
    .where(and(eq(positions.organizationId, orgId), eq(positions.id, id)));
  const rows = lock ? await query.for("key share") : await query;
  return rows.length > 0;
}

/** Position cursor: the exact (created_at, id) of the last row, created_at to the microsecond. */
export type PositionCursor = KeysetCursor;

export async function listPositions(
  q: Queryable,
  orgId: string,
  opts: { limit?: number | undefined; after?: PositionCursor | undefined; state?: PositionState | undefined } = {},
): Promise<{ rows: PositionRow[]; last: PositionCursor | null; more: boolean }> {
  const where: SQL[] = [eq(positions.organizationId, orgId)];
  if (opts.state) where.push(eq(positions.state, opts.state));
  if (opts.after) {
    where.push(sql`(${positions.createdAt}, ${positions.id}) > (${opts.after.createdAt}::timestamptz, ${opts.after.id}::uuid)`);
  }
  const base = q
    .select({
      row: positions,
      cursorAt: keysetTimestamp(positions.createdAt),
    })
    .from(positions)
    .where(and(...where))
    .orderBy(asc(positions.createdAt), asc(positions.id));
  // One extra row tells whether another page exists without a count query.
  const found = opts.limit === undefined ? await base : await base.limit(opts.limit + 1);
  const { page, more, last } = keysetPage(found, opts.limit);
  return { rows: page.map((r) => r.row), last, more };
}

/** Sets only the fields present in `body` in one statement (so parallel updates of different fields both land). */
export async function updatePosition(q: Queryable, orgId: string, id: string, body: PositionUpdate): Promise<PositionRow | null> {
  const [row] = await q
    .update(positions)
    .set({ ...positionColumns(body), updatedAt: sql`now()` })
    .where(and(eq(positions.organizationId, orgId), eq(positions.id, id)))
    .returning();
  return row ?? null;
}
