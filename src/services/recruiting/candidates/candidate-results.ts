import type { CandidateUpdate } from "../../../contracts/recruiting/candidates.js";
import type { InterviewStatus } from "../../../contracts/recruiting/interviews.js";
import { conflict } from "../../../shared/errors.js";
import { columnOf } from "../columns.js";
import { finalResultMessage, isFinal, RESULT_FIELDS, type ResultField } from "../interviews/interview-transitions.js";
import type { CandidateResults, candidateColumns } from "./candidates.repository.js";

/** The fields of `body` that mirror the interview's result (interview-transitions.ts RESULT_FIELDS). */
export const resultFieldsIn = (body: CandidateUpdate): ResultField[] => RESULT_FIELDS.filter((field) => body[field] !== undefined);

const same = (a: unknown, b: unknown) =>
  a instanceof Date || b instanceof Date ? a instanceof Date && b instanceof Date && a.getTime() === b.getTime() : a === b;

/**
 * The interview's finality rule (interview-transitions.ts isFinal) on the candidate's side: while
 * the interview is final, a candidate body may repeat the result fields the candidate holds (a
 * client writing back what it read), never change one; 409 naming the correction path otherwise,
 * as the interview's own PUT answers. `columns` are the body's (`candidateColumns`); `prefix` says
 * which entry of a bulk update it is.
 */
export function assertResultsKept(
  status: InterviewStatus | undefined,
  held: CandidateResults,
  body: CandidateUpdate,
  columns: ReturnType<typeof candidateColumns>,
  prefix = "",
): void {
  if (status === undefined || !isFinal(status)) return;
  const changed = resultFieldsIn(body).filter((field) => {
    const column = columnOf(field);
    return !same(columns[column], held[column]);
  });
  if (changed.length > 0) throw conflict(`${prefix}${finalResultMessage(status, changed)}`);
}
