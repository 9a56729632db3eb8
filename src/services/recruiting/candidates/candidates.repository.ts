import { and, asc, eq, getTableColumns, inArray, sql, type AnyColumn } from "drizzle-orm";
import type { Candidate, CandidateState, CandidateUpdate } from "../../../contracts/recruiting/candidates.js";
import type { Db, Queryable } from "../../../shared/db/database.js";
import { toColumns, type FieldsOf } from "../columns.js";
import { candidates, type CandidateRow } from "./candidates.tables.js";
import { namedStatement, namedStatementOf, type NamedStatement } from "../../../shared/db/named-statement.js";
import type { EventsOut } from "../../../shared/ports/events-out.js";
import { PgDialect } from "drizzle-orm/pg-core";
import { NO_EVENTS_OUT } from "../../../shared/no-events-out.js";
import { candidateJsonSql, candidateJsonText } from "./candidate-json.js";

type CandidateInsert = typeof candidates.$inferInsert;
type WritableKey = Exclude<
  keyof CandidateUpdate,
  "id" | "organization_id" | "position_id" | "created_at" | "updated_at" | "upstream_assessment_order_id"
>;

/** API field → column; path-owned and read-only fields are not in it, so a body never sets them. */
const WRITABLE = {
  name: true,
  email: true,
  phone: true,
  language: true,
  state: true,
  score: true,
  feedback: true,
  hired: true,
  invited_at: true,
  completed_at: true,
  upstream_application_id: true,
  short_listed: true,
  tags: true,
} as const satisfies Record<WritableKey & FieldsOf<CandidateInsert>, true>;

const TIMESTAMPS = new Set<string>(["invited_at", "completed_at"]);

/** The columns for the fields present in `body`; `short_listed: null` means false (its default). */
export function candidateColumns(body: CandidateUpdate): Partial<CandidateInsert> {
  const out = toColumns<CandidateInsert>(body, WRITABLE, TIMESTAMPS);
  if (body.short_listed === null) out.shortListed = false;
  return out;
}

/** Fields the spec types without null are left out of the answer until they hold a value. */
export function toCandidate(row: CandidateRow): Candidate {
  return {
    id: row.id,
    position_id: row.positionId,
    organization_id: row.organizationId,
    name: row.name,
    email: row.email,
    ...(row.phone === null ? {} : { phone: row.phone }),
    language: row.language,
    state: row.state as CandidateState,
    ...(row.score === null ? {} : { score: row.score }),
    ...(row.feedback === null ? {} : { feedback: row.feedback }),
    hired: row.hired,
    ...(row.invitedAt === null ? {} : { invited_at: row.invitedAt.toISOString() }),
    ...(row.completedAt === null ? {} : { completed_at: row.completedAt.toISOString() }),
    ...(row.upstreamApplicationId === null ? {} : { upstream_application_id: row.upstreamApplicationId }),
    ...(row.upstreamAssessmentOrderId === null ? {} : { upstream_assessment_order_id: row.upstreamAssessmentOrderId }),
    short_listed: row.shortListed,
    tags: row.tags,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** The creation body's columns, defaults applied. */
export type NewCandidate = {
  name: string;
  email: string;
  phone: string;
  language: string;
  tags: string[];
  hired: boolean;
  upstreamApplicationId: string | null;
  shortListed: boolean;
};

const CANDIDATE_COLUMNS = Object.entries(getTableColumns(candidates)).map(([key, column]) => [key, column.name] as const);
const CANDIDATE_DRIVER_COLUMNS = Object.entries(getTableColumns(candidates));

/** A row read through Drizzle's `execute` (raw values: timestamps as text) as Drizzle's row. */
function fromDriverRow(row: Record<string, unknown>): CandidateRow {
  const out: Record<string, unknown> = {};
  for (const [key, column] of CANDIDATE_DRIVER_COLUMNS) {
    const value = row[column.name];
    out[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return out as CandidateRow;
}

/** A row of `candidates` read by a named statement (columns by their SQL names) as Drizzle's row. */
function toCandidateRow(row: Record<string, unknown>): CandidateRow {
  const out: Record<string, unknown> = {};
  for (const [key, name] of CANDIDATE_COLUMNS) out[key] = row[name];
  return out as CandidateRow;
}

/**
 * The candidate and its interview record in ONE statement (no transaction round trips), as a named
 * statement: a --cpu-prof of POST candidate showed Drizzle building this query for every request
 * (`is()`, `buildQueryFromSourceParams`, the select builder: ~10% of the API's samples) and Postgres
 * parsed and planned it every time. The position row is key-share locked so it cannot vanish under
 * the new candidate; no row when the position is not the org's. Tags travel as JSON text.
 */
const insertText = (event: string) =>
  `with created as (
     insert into candidates (organization_id, position_id, name, email, phone, language, tags, hired, upstream_application_id, short_listed)
     select p.organization_id, p.id, $3, $4, $5, $6, array(select json_array_elements_text($7::json)), $8::boolean, $9, $10::boolean
       from positions p
      where p.organization_id = $1::uuid and p.id = $2::uuid
        for key share
     returning *),
   interview as (
     insert into interviews (organization_id, candidate_id, interview_link)
     select organization_id, id, $11 from created
     returning id)${event ? `,\n   ${event}` : ""}
   select ${CANDIDATE_COLUMNS.map(([, name]) => `"${name}"`).join(", ")} from created`;

/**
 * A statement of `events`' (the same text, so the same prepared statement, for every call): its
 * `candidate.created` event is a WITH item of the statement itself (the outbox port), which costs
 * one probe of the organisation's endpoints when nobody subscribes.
 */
function withCreatedEvents(
  build: (event: string) => string,
  name: string,
  org: string,
): (events: EventsOut<Queryable>) => NamedStatement<Record<string, unknown>> {
  const built = new WeakMap<EventsOut<Queryable>, NamedStatement<Record<string, unknown>>>();
  return (events) => {
    let statement = built.get(events);
    if (!statement) {
      const event = events.statementItem({
        name: "created_event",
        type: "candidate.created",
        from: "created c",
        org,
        data: candidateJsonText("c"),
      });
      statement = namedStatementOf(name, build(event));
      built.set(events, statement);
    }
    return statement;
  };
}

const insertStatement = withCreatedEvents(insertText, "recruiting_create_candidate", "$1::uuid");

/**
 * Creates a candidate of the org's position together with its interview record, atomically (one
 * statement). Answers null when the position is not the org's.
 */
export async function insertCandidateWithInterview(
  db: Db,
  orgId: string,
  positionId: string,
  v: NewCandidate,
  interviewLink: string,
  events: EventsOut<Queryable> = NO_EVENTS_OUT,
): Promise<CandidateRow | null> {
  const [row] = await insertStatement(events)(db, [
    orgId,
    positionId,
    v.name,
    v.email,
    v.phone,
    v.language,
    JSON.stringify(v.tags),
    String(v.hired),
    v.upstreamApplicationId,
    String(v.shortListed),
    interviewLink,
  ]);
  return row ? toCandidateRow(row) : null;
}

/** A candidate to create with its interview record; the id is made by the caller (see the batch). */
export type CandidateToCreate = { id: string; orgId: string; positionId: string; values: NewCandidate; interviewLink: string };

/**
 * Several candidates, each with its interview record, in ONE statement: the POST requests that
 * arrive together (candidate-intake.ts). The rows come in as one `jsonb` parameter, each with an id
 * made in JS so that the answer maps back to its request. A row whose position is not its org's is
 * not inserted; nor is one that conflicts on a unique key (`on conflict do nothing`, which also
 * skips a second row of the batch with the same email): the caller replays those alone, through
 * `insertCandidateWithInterview`, for their own 404 or 409. The list-version trigger fires once
 * for the statement.
 */
const insertManyText = (event: string) =>
  `with input as (
     select * from jsonb_to_recordset($1::jsonb) as i(
       id uuid, organization_id uuid, position_id uuid, name text, email text, phone text, language text,
       tags text[], hired boolean, upstream_application_id text, short_listed boolean, interview_link text)),
   created as (
     insert into candidates (id, organization_id, position_id, name, email, phone, language, tags, hired, upstream_application_id, short_listed)
     select i.id, p.organization_id, p.id, i.name, i.email, i.phone, i.language, i.tags, i.hired, i.upstream_application_id, i.short_listed
       from input i
       join positions p on p.organization_id = i.organization_id and p.id = i.position_id
     on conflict do nothing
     returning *),
   interview as (
     insert into interviews (organization_id, candidate_id, interview_link)
     select c.organization_id, c.id, i.interview_link from created c join input i on i.id = c.id
     returning id)${event ? `,\n   ${event}` : ""}
   select ${CANDIDATE_COLUMNS.map(([, name]) => `"${name}"`).join(", ")} from created`;

// The batch holds several organisations' candidates: each row's own organisation is probed.
const insertManyStatement = withCreatedEvents(insertManyText, "recruiting_create_candidates", "c.organization_id");

/** Inserts what it can of `items` (see `insertManyStatement`); answers the rows created, by id. */
export async function insertCandidatesWithInterviews(
  db: Db,
  items: CandidateToCreate[],
  events: EventsOut<Queryable> = NO_EVENTS_OUT,
): Promise<Map<string, CandidateRow>> {
  const input = items.map((c) => ({
    id: c.id,
    organization_id: c.orgId,
    position_id: c.positionId,
    name: c.values.name,
    email: c.values.email,
    phone: c.values.phone,
    language: c.values.language,
    tags: c.values.tags,
    hired: c.values.hired,
    upstream_application_id: c.values.upstreamApplicationId,
    short_listed: c.values.shortListed,
    interview_link: c.interviewLink,
  }));
  const rows = await insertManyStatement(events)(db, [JSON.stringify(input)]);
  return new Map(rows.map((row) => [row["id"] as string, toCandidateRow(row)]));
}

/**
 * The list answer's JSON, built by the database with plain text concatenation, in one named
 * statement that also tells a missing position (no row) from an empty list (`[]`), and answers the
 * list's version (migrations/0203_candidate_list_versions.sql). When the caller already holds the
 * JSON of that version (`$3`), the database does not build it again (`json` is null).
 *
 * Profiled with 1,000 candidates on Postgres 15 (EXPLAIN ANALYZE and client round trip, medians
 * of 30, machine loaded): json_strip_nulls(json_build_object(...)) per row took 11.8 ms of server
 * time per request; this concatenation (to_json only where a value needs escaping, `||` to drop a
 * field that is null) takes 4.2 ms. Reading the rows instead and writing the JSON in JS was slower
 * still: drizzle's per-field result mapping of 18 columns × 1,000 rows took most of a 10.6 ms
 * request (a --cpu-prof of the list showed drizzle's `is()` and `mapResultRow` on top), against
 * one text value here.
 */
const listStatement = (() => {
  // Inside a select field drizzle writes columns without their table, which a correlated subquery
  // cannot have: the candidate columns are spelled through the alias `c`, the position through `p`.
  const c = (column: AnyColumn) => sql.raw(`c.${column.name}`);
  const k = candidates;
  const object = candidateJsonSql("c");
  const list = sql`(select '[' || coalesce(string_agg(${object}, ',' order by ${c(k.createdAt)}, ${c(k.id)}), '') || ']'
    from ${k} c where ${c(k.organizationId)} = p.organization_id and ${c(k.positionId)} = p.id)`;
  const { sql: json } = new PgDialect().sqlToQuery(list);
  return namedStatement<{ version: string; pending: number; json: string | null }>(
    "recruiting_list_candidates",
    `select p.version::text as version, p.pending::int as pending,
            case when p.version = $3::bigint then null else ${json} end as json
       from (select p.id, p.organization_id, p.candidate_list_base + n.pending as version, n.pending
               from positions p,
                    lateral (select count(*) as pending from candidate_list_changes ch where ch.position_id = p.id) n
              where p.organization_id = $1::uuid and p.id = $2::uuid) p`,
  );
})();

export type CandidateListRead = {
  /** The list's version: it changes with every committed write of the position's candidates. */
  version: string;
  /** Change rows not yet folded into the base (see foldCandidateListChanges). */
  pending: number;
  /** The answer's JSON text; null when it is the version the caller already holds. */
  json: string | null;
};

/**
 * The candidates of a position as the JSON text of the list answer (see `listStatement`), unless
 * `known` is its current version; null when the position is not the org's. The shape is
 * `toCandidate`'s exactly (fields that are absent until set are left out; times in toISOString's
 * format), which the integration tests compare field for field.
 */
export async function readCandidateList(
  db: Db,
  orgId: string,
  positionId: string,
  known: string | null,
): Promise<CandidateListRead | null> {
  const [row] = await listStatement(db, [orgId, positionId, known]);
  return row ?? null;
}

/** Moves the position's counted list changes into its base (the version stays the same). */
export async function foldCandidateListChanges(db: Db, positionId: string): Promise<void> {
  await db.execute(sql`select fold_candidate_list_changes(${positionId}::uuid)`);
}

/** The same for every position (one instance at a time); answers the number of change rows moved. */
export async function foldAllCandidateListChanges(db: Db): Promise<number> {
  // Both drivers answer raw SQL with `rows`.
  const result = (await db.execute(sql`select fold_all_candidate_list_changes()::text as moved`)) as unknown as {
    rows: { moved: string }[];
  };
  return Number(result.rows[0]?.moved ?? 0);
}

export async function findCandidate(q: Queryable, orgId: string, positionId: string, id: string): Promise<CandidateRow | null> {
  const [row] = await q
    .select()
    .from(candidates)
    .where(and(eq(candidates.organizationId, orgId), eq(candidates.positionId, positionId), eq(candidates.id, id)));
  return row ?? null;
}

/**
 * Sets only the given columns in one statement (parallel updates of different fields both land),
 * with its `candidate.updated` event as a WITH item of the same statement (the outbox port).
 */
export async function updateCandidateColumns(
  q: Queryable,
  orgId: string,
  positionId: string,
  id: string,
  columns: Partial<CandidateInsert>,
  events: EventsOut<Queryable> = NO_EVENTS_OUT,
): Promise<CandidateRow | null> {
  const update = q
    .update(candidates)
    .set({ ...columns, updatedAt: sql`now()` })
    .where(and(eq(candidates.organizationId, orgId), eq(candidates.positionId, positionId), eq(candidates.id, id)))
    .returning();
  const event = events.statementItem({
    name: "updated_event",
    type: "candidate.updated",
    from: "updated c",
    org: "c.organization_id",
    data: candidateJsonText("c"),
  });
  if (!event) {
    const [row] = await update;
    return row ?? null;
  }
  const result = (await q.execute(sql`with updated as (${update.getSQL()}), ${sql.raw(event)} select * from updated`)) as unknown as {
    rows: Record<string, unknown>[];
  };
  const [row] = result.rows;
  return row ? fromDriverRow(row) : null;
}

/** A candidate's fields that mirror their interview's result (interview-transitions.ts RESULT_FIELDS). */
export type CandidateResults = Pick<CandidateRow, "score" | "feedback" | "completedAt">;

/**
 * Locks the given candidates of the position in id order and answers what each found one holds of
 * its interview's result. One order for every transaction means two bulk updates over the same
 * rows queue instead of deadlocking.
 */
export async function lockCandidates(
  q: Queryable,
  orgId: string,
  positionId: string,
  ids: string[],
): Promise<Map<string, CandidateResults>> {
  if (ids.length === 0) return new Map();
  const rows = await q
    .select({ id: candidates.id, score: candidates.score, feedback: candidates.feedback, completedAt: candidates.completedAt })
    .from(candidates)
    .where(and(eq(candidates.organizationId, orgId), eq(candidates.positionId, positionId), inArray(candidates.id, ids)))
    .orderBy(asc(candidates.id))
    .for("update");
  return new Map(rows.map(({ id, ...results }) => [id, results]));
}
