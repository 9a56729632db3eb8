import type { InterviewStatus } from "../../../contracts/recruiting/interviews.js";
import { conflict } from "../../../shared/errors.js";

/**
 * The interview lifecycle, checked here and nowhere else. The runner starts from not_started and
 * ends in completed, errored or cancelled; grading follows completion; an errored interview can be
 * retried. graded and cancelled are final.
 */
export const INTERVIEW_TRANSITIONS = {
  not_started: ["completed", "errored", "cancelled"],
  completed: ["graded"],
  errored: ["not_started"],
  cancelled: [],
  graded: [],
} as const satisfies Record<InterviewStatus, readonly InterviewStatus[]>;

/** Statuses whose arrival the write-back hook hears about. */
export const ENDED_STATUSES = ["graded", "errored", "cancelled"] as const;
export type EndedStatus = (typeof ENDED_STATUSES)[number];

export const isEnded = (s: InterviewStatus): s is EndedStatus => (ENDED_STATUSES as readonly string[]).includes(s);

/** Staying in the same status is a progress report, not a transition; any other move must be listed. */
export function assertTransition(from: InterviewStatus, to: InterviewStatus): void {
  if (from === to) return;
  if (!(INTERVIEW_TRANSITIONS[from] as readonly InterviewStatus[]).includes(to)) {
    throw conflict(`Interview status cannot change from ${from} to ${to}${nextStep(from, to)}`);
  }
}

/** The path of a candidate's interview, as a refusal names it. */
const INTERVIEW_PATH = "/api/v1/org/{org_id}/positions/{position_id}/candidates/{candidate_id}/interview";

/** What to do instead of a refused move, where there is something to do. */
function nextStep(from: InterviewStatus, to: InterviewStatus): string {
  if (from === "not_started" && to === "graded")
    return `: complete it first (PUT ${INTERVIEW_PATH} with {"status":"completed"}), then grade it; the CLI's \`hirebridge interview result <position_id> <candidate_id> --score <n>\` does both steps.`;
  if (from === "graded") return `. ${correctionHint(`${INTERVIEW_PATH}/correction`)}`;
  return "";
}

/** Statuses no report may change: a graded result (corrected only through the correction path) and a cancelled interview. */
export const FINAL_STATUSES = ["graded", "cancelled"] as const;
export const isFinal = (s: InterviewStatus): boolean => (FINAL_STATUSES as readonly string[]).includes(s);

/** How a graded result is corrected, named by every refusal to change one (`path`: the correction's HTTP path). */
const correctionHint = (path: string) =>
  `To correct the score or feedback, run \`hirebridge interview correct <position_id> <candidate_id> --score <n> --reason <text>\` (API: POST ${path} with a reason): it also sends the correction to the ATS.`;

/** Why a report that would change a final interview is refused (409). */
export function finalMessage(status: InterviewStatus): string {
  return status === "graded"
    ? `The interview is graded, which is final: its result cannot change through a report (the ATS was told it). ${correctionHint(`${INTERVIEW_PATH}/correction`)}`
    : `The interview is ${status}, which is final: it cannot change.`;
}

/**
 * The candidate's fields that mirror their interview's result: grading and a correction set them
 * (interviews.service.ts), so once the interview is final they follow it and nothing else.
 */
export const RESULT_FIELDS = ["score", "feedback", "completed_at"] as const;
export type ResultField = (typeof RESULT_FIELDS)[number];

/** Why a candidate change to `fields` (of RESULT_FIELDS) is refused while the interview is final (409). */
export function finalResultMessage(status: InterviewStatus, fields: readonly ResultField[]): string {
  const mirror = `${fields.join(", ")} ${fields.length === 1 ? "mirrors" : "mirror"}`;
  return status === "graded"
    ? `The candidate's interview is graded, which is final: ${mirror} its result and cannot change through the candidate (the ATS was told it). ${correctionHint(`${INTERVIEW_PATH}/correction`)}`
    : `The candidate's interview is ${status}, which is final: ${mirror} it and cannot change.`;
}
