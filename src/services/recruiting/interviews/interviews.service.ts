import type { InterviewCorrection, InterviewStatus, InterviewUpdate } from "../../../contracts/recruiting/interviews.js";
import type { Db, Queryable, Tx } from "../../../shared/db/database.js";
import type { EventsOut } from "../../../shared/ports/events-out.js";
import { conflict, notFound, validationError } from "../../../shared/errors.js";
import type { InterviewEnded, InterviewEndedHook } from "../../../shared/ports/recruiting-sync.js";
import type { TemplatesChangedHook } from "../../../shared/ports/assessment-orders.js";
import { recordAudit, type AuditChange, type Audited } from "../audit-trail.js";
import { updateCandidateColumns } from "../candidates/candidates.repository.js";
import { writeBackTargetOf } from "../upstream/write-back-source.repository.js";
import { assertTransition, finalMessage, isEnded, isFinal } from "./interview-transitions.js";
import { findInterview, interviewColumns, toInterview, updateInterviewColumns } from "./interviews.repository.js";
import type { InterviewRow } from "./interviews.tables.js";

export type RecruitingHooks = {
  /**
   * Called inside the transaction that moves an interview to graded, errored or cancelled (the
   * ATS write-back, src/runtime/wiring.ts), with what the write-back decides on.
   */
  onInterviewEnded?: InterviewEndedHook<Tx>;
  /** Called inside the transaction that changes a template position (the packages' republish, src/runtime/wiring.ts). */
  onTemplatesChanged?: TemplatesChangedHook<Tx>;
};

export type CandidateRef = { orgId: string; positionId: string; candidateId: string };

/** An interview's change as the audit log records it: its ids and, for a grading or correction, the score before and after. */
const interviewChange = (ref: CandidateRef, action: string, row: InterviewRow, scoreBefore: number | null): AuditChange => ({
  orgId: ref.orgId,
  action,
  resourceType: "interview",
  resourceIds: [row.id, ref.candidateId, ref.positionId],
  ...(action === "interview.updated" && scoreBefore === row.score ? {} : { scoreBefore, scoreAfter: row.score }),
});

/**
 * Applies the runner's report under a row lock: checks the transition, stores the fields sent, and
 * when the interview is graded makes the candidate's score, feedback and completed_at follow it.
 */
export async function reportInterview(
  db: Db,
  hooks: RecruitingHooks,
  events: EventsOut<Queryable>,
  ref: CandidateRef,
  body: InterviewUpdate,
  audited?: Audited,
): Promise<InterviewRow> {
  const reported = await db.transaction(async (tx) => {
    const current = await findInterview(tx, ref.orgId, ref.positionId, ref.candidateId, true);
    if (!current) throw notFound("Candidate not found");
    const from = current.status as InterviewStatus;
    const to = body.status ?? from;
    assertTransition(from, to);

    const columns = interviewColumns(body);
    if (isFinal(from)) {
      // A final interview takes only a repeat of what it holds (an at-least-once runner re-sending its report).
      if (!changes(current, columns)) return current;
      throw conflict(finalMessage(from));
    }
    if (to === "graded") {
      const score = body.score !== undefined ? body.score : current.score;
      if (score === null) {
        throw validationError([{ loc: ["body", "score"], msg: "A graded interview needs a score", type: "missing" }]);
      }
      const gradedAt = body.graded_at !== undefined ? body.graded_at : current.gradedAt;
      if (gradedAt === null) columns.gradedAt = new Date(); // a graded interview always says when
    }
    const row = await updateInterviewColumns(tx, current.id, columns);
    await events.record(tx, [{ orgId: ref.orgId, type: "interview.updated", data: { ...toInterview(row), position_id: ref.positionId } }]);
    const action = to === "graded" ? "interview.graded" : "interview.updated";
    await recordAudit(tx, audited, [interviewChange(ref, action, row, current.score)]);

    if (row.status === "graded") {
      const candidate = { score: row.score, feedback: row.feedback, completedAt: row.endTime ?? row.gradedAt };
      await updateCandidateColumns(tx, ref.orgId, ref.positionId, ref.candidateId, candidate, events);
    }
    if (from !== to && isEnded(to)) await tellWriteBack(tx, hooks, ref, row, { from, to });
    return row;
  });
  events.committed([ref.orgId]);
  return reported;
}

/** Whether `columns` would change anything `current` holds. */
function changes(current: InterviewRow, columns: object): boolean {
  return Object.entries(columns).some(([key, value]) => {
    const held = (current as Record<string, unknown>)[key];
    if (value instanceof Date || held instanceof Date)
      return !(value instanceof Date && held instanceof Date && value.getTime() === held.getTime());
    return value !== held;
  });
}

/** The write-back hook, inside the change's transaction, with the position's write-back settings. */
async function tellWriteBack(
  tx: Tx,
  hooks: RecruitingHooks,
  ref: CandidateRef,
  row: InterviewRow,
  change: Pick<InterviewEnded, "from" | "to" | "correction">,
): Promise<void> {
  if (!hooks.onInterviewEnded) return;
  const writeBack = await writeBackTargetOf(tx, ref.positionId, ref.candidateId);
  if (!writeBack) throw notFound("Candidate not found");
  const event: InterviewEnded = {
    organizationId: ref.orgId,
    positionId: ref.positionId,
    candidateId: ref.candidateId,
    interviewId: row.id,
    interview: toInterview(row),
    writeBack,
    ...change,
  };
  await hooks.onInterviewEnded(event, tx);
}

/**
 * The correction path of a graded result (the only way to change one): the new score and feedback
 * on the interview and the candidate, its event, and a corrective write-back carrying `reason`
 * (when the position writes back), all in one transaction, so Hirebridge and the ATS never
 * disagree silently. 409 unless the interview is graded.
 */
export async function correctInterview(
  db: Db,
  hooks: RecruitingHooks,
  events: EventsOut<Queryable>,
  ref: CandidateRef,
  body: InterviewCorrection,
  audited?: Audited,
): Promise<InterviewRow> {
  const corrected = await db.transaction(async (tx) => {
    const current = await findInterview(tx, ref.orgId, ref.positionId, ref.candidateId, true);
    if (!current) throw notFound("Candidate not found");
    if (current.status !== "graded") throw conflict(`Only a graded result can be corrected; this interview is ${current.status}`);
    const columns: Partial<InterviewRow> = { score: body.score, ...(body.feedback !== undefined ? { feedback: body.feedback } : {}) };
    const row = await updateInterviewColumns(tx, current.id, columns);
    await events.record(tx, [{ orgId: ref.orgId, type: "interview.updated", data: { ...toInterview(row), position_id: ref.positionId } }]);
    const candidate = { score: row.score, feedback: row.feedback, completedAt: row.endTime ?? row.gradedAt };
    await updateCandidateColumns(tx, ref.orgId, ref.positionId, ref.candidateId, candidate, events);
    const correction = { reason: body.reason, at: new Date().toISOString() };
    await tellWriteBack(tx, hooks, ref, row, { from: "graded", to: "graded", correction });
    await recordAudit(tx, audited, [interviewChange(ref, "interview.corrected", row, current.score)]);
    return row;
  });
  events.committed([ref.orgId]);
  return corrected;
}
