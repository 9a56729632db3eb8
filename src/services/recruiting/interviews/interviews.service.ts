import type { Interview, InterviewStatus, InterviewUpdate } from "../../../contracts/recruiting/interviews.js";
import type { Db, Tx } from "../../../shared/db/database.js";
import { notFound, validationError } from "../../../shared/errors.js";
import { updateCandidateColumns } from "../candidates/candidates.repository.js";
import { assertTransition, isEnded, type EndedStatus } from "./interview-transitions.js";
import { findInterview, interviewColumns, toInterview, updateInterviewColumns } from "./interviews.repository.js";
import type { InterviewRow } from "./interviews.tables.js";

/** What the write-back (sync engine) needs to know when an interview ends. */
export type InterviewEndedEvent = {
  organizationId: string;
  positionId: string;
  candidateId: string;
  interviewId: string;
  from: InterviewStatus;
  to: EndedStatus;
  interview: Interview;
};

export type RecruitingHooks = {
  /**
   * Called inside the transaction that moves an interview to graded, errored or cancelled, so work
   * can be enqueued atomically with the change. Throwing rolls the change back.
   */
  onInterviewEnded?: (event: InterviewEndedEvent, tx: Tx) => Promise<void>;
};

export type CandidateRef = { orgId: string; positionId: string; candidateId: string };

/**
 * Applies the runner's report under a row lock: checks the transition, stores the fields sent, and
 * when the interview is graded makes the candidate's score, feedback and completed_at follow it.
 */
export async function reportInterview(db: Db, hooks: RecruitingHooks, ref: CandidateRef, body: InterviewUpdate): Promise<InterviewRow> {
  return db.transaction(async (tx) => {
    const current = await findInterview(tx, ref.orgId, ref.positionId, ref.candidateId, true);
    if (!current) throw notFound("Candidate not found");
    const from = current.status as InterviewStatus;
    const to = body.status ?? from;
    assertTransition(from, to);

    const columns = interviewColumns(body);
    if (to === "graded") {
      const score = body.score !== undefined ? body.score : current.score;
      if (score === null) {
        throw validationError([{ loc: ["body", "score"], msg: "A graded interview needs a score", type: "missing" }]);
      }
      const gradedAt = body.graded_at !== undefined ? body.graded_at : current.gradedAt;
      if (gradedAt === null) columns.gradedAt = new Date(); // a graded interview always says when
    }
    const row = await updateInterviewColumns(tx, current.id, columns);

    if (row.status === "graded") {
      await updateCandidateColumns(tx, ref.orgId, ref.positionId, ref.candidateId, {
        score: row.score,
        feedback: row.feedback,
        completedAt: row.endTime ?? row.gradedAt,
      });
    }
    if (from !== to && isEnded(to)) {
      await hooks.onInterviewEnded?.(
        {
          organizationId: ref.orgId,
          positionId: ref.positionId,
          candidateId: ref.candidateId,
          interviewId: row.id,
          from,
          to,
          interview: toInterview(row),
        },
        tx,
      );
    }
    return row;
  });
}
