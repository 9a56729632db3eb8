import { type AnyColumn, type SQL, sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { candidates } from "./candidates.tables.js";

export const isoText = (column: AnyColumn | SQL) => sql`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * A candidate's API answer (`toCandidate`'s shape exactly: fields absent until set are left out,
 * times in toISOString's format) as JSON text built by the database, for the row alias `alias`:
 * the candidate list builds its answer from it, and the one-statement writes their events' data.
 * Plain text concatenation (to_json only where a value needs escaping, `||` to drop a field that
 * is null): see candidates.repository.ts listStatement for what it was measured against.
 */
export function candidateJsonSql(alias: string): SQL {
  const c = (column: AnyColumn) => sql.raw(`${alias}.${column.name}`);
  const k = candidates;
  return sql`concat(
    '{"id":"', ${c(k.id)}, '","position_id":"', ${c(k.positionId)}, '","organization_id":"', ${c(k.organizationId)},
    '","name":', to_json(${c(k.name)}), ',"email":', to_json(${c(k.email)}), ',"phone":' || to_json(${c(k.phone)}),
    ',"language":', to_json(${c(k.language)}), ',"state":', to_json(${c(k.state)}), ',"score":' || ${c(k.score)},
    ',"feedback":' || to_json(${c(k.feedback)}), ',"hired":', ${c(k.hired)}::text,
    ',"invited_at":"' || ${isoText(c(k.invitedAt))} || '"', ',"completed_at":"' || ${isoText(c(k.completedAt))} || '"',
    ',"upstream_application_id":' || to_json(${c(k.upstreamApplicationId)}),
    ',"upstream_assessment_order_id":' || to_json(${c(k.upstreamAssessmentOrderId)}), ',"short_listed":', ${c(k.shortListed)}::text,
    ',"tags":', array_to_json(${c(k.tags)}), ',"created_at":"', ${isoText(c(k.createdAt))}, '","updated_at":"', ${isoText(c(k.updatedAt))}, '"}')`;
}

/** The same as SQL text (it has no parameters), to paste into a statement's text. */
export const candidateJsonText = (alias: string): string => new PgDialect().sqlToQuery(candidateJsonSql(alias)).sql;
