import { and, asc, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { Interview, InterviewStatus, InterviewUpdate } from "../../../contracts/recruiting/interviews.js";
import type { Queryable, Tx } from "../../../shared/db/database.js";
import { candidates } from "../candidates/candidates.tables.js";
import { toColumns, type FieldsOf } from "../columns.js";
import { interviews, type InterviewRow } from "./interviews.tables.js";

type InterviewInsert = typeof interviews.$inferInsert;
type WritableKey = Exclude<keyof InterviewUpdate, "id" | "candidate" | "interview_link">;

/** API field → column; `interview_link`, `id` and `candidate` are the server's. */
const WRITABLE = {
  status: true,
  conversation_id: true,
  transcript_link: true,
  recording_link: true,
  start_time: true,
  end_time: true,
  graded_at: true,
  last_attempted_at: true,
  ip_address: true,
  location: true,
  score: true,
  feedback: true,
  interview_transcript: true,
} as const satisfies Record<WritableKey & FieldsOf<InterviewInsert>, true>;

const TIMESTAMPS = new Set<string>(["start_time", "end_time", "graded_at", "last_attempted_at"]);

export function interviewColumns(body: InterviewUpdate): Partial<InterviewInsert> {
  return toColumns<InterviewInsert>(body, WRITABLE, TIMESTAMPS);
}

const iso = (d: Date | null) => (d === null ? null : d.toISOString());

export function toInterview(row: InterviewRow): Interview {
  return {
    id: row.id,
    conversation_id: row.conversationId,
    transcript_link: row.transcriptLink,
    recording_link: row.recordingLink,
    start_time: iso(row.startTime),
    end_time: iso(row.endTime),
    graded_at: iso(row.gradedAt),
    last_attempted_at: iso(row.lastAttemptedAt),
    ip_address: row.ipAddress,
    location: row.location,
    interview_link: row.interviewLink,
    status: row.status as InterviewStatus,
    score: row.score,
    feedback: row.feedback,
    interview_transcript: row.interviewTranscript,
    candidate: row.candidateId,
  };
}

/** New interview records (one per candidate), in one statement. */
export async function insertInterviews(
  q: Queryable,
  rows: { organizationId: string; candidateId: string; interviewLink: string }[],
): Promise<InterviewRow[]> {
  if (rows.length === 0) return [];
  return q.insert(interviews).values(rows).onConflictDoNothing({ target: interviews.candidateId }).returning();
}

/** The interview of a candidate of the position in the org; `forUpdate` locks it for the caller's transaction. */
export async function findInterview(
  q: Queryable | Tx,
  orgId: string,
  positionId: string,
  candidateId: string,
  forUpdate = false,
): Promise<InterviewRow | null> {
  const query = q
    .select({ interview: interviews })
    .from(interviews)
    .innerJoin(candidates, eq(candidates.id, interviews.candidateId))
    .where(ofPositionCandidates(orgId, positionId, eq(interviews.candidateId, candidateId)));
  const [found] = forUpdate ? await query.for("update", { of: interviews }) : await query;
  return found?.interview ?? null;
}

/** The org's interviews of candidates of its position `positionId`, narrowed by `which` (candidates joined). */
function ofPositionCandidates(orgId: string, positionId: string, which: SQL) {
  return and(eq(interviews.organizationId, orgId), eq(candidates.organizationId, orgId), eq(candidates.positionId, positionId), which);
}

export async function updateInterviewColumns(q: Queryable, id: string, columns: Partial<InterviewInsert>): Promise<InterviewRow> {
  const [row] = await q
    .update(interviews)
    .set({ ...columns, updatedAt: sql`now()` })
    .where(eq(interviews.id, id))
    .returning();
  return row!;
}

/**
 * The statuses of the interviews of these candidates of the org's position, locked (for the
 * caller's transaction) in candidate id order: a candidate change that must agree with its
 * interview takes the interview first, the order grading and the correction path take them in
 * (interview, then candidate), so neither waits on the other's second lock.
 */
export async function lockInterviewStatuses(
  q: Queryable,
  orgId: string,
  positionId: string,
  candidateIds: string[],
): Promise<Map<string, InterviewStatus>> {
  if (candidateIds.length === 0) return new Map();
  const rows = await q
    .select({ candidateId: interviews.candidateId, status: interviews.status })
    .from(interviews)
    .innerJoin(candidates, eq(candidates.id, interviews.candidateId))
    .where(ofPositionCandidates(orgId, positionId, inArray(interviews.candidateId, candidateIds)))
    .orderBy(asc(interviews.candidateId))
    .for("update", { of: interviews });
  return new Map(rows.map((r) => [r.candidateId, r.status as InterviewStatus]));
}
