import type { CandidateBulkUpdateItem, CandidateCreate, CandidateUpdate } from "../../../contracts/recruiting/candidates.js";
import type { Db, Queryable } from "../../../shared/db/database.js";
import { notFound, validationError } from "../../../shared/errors.js";
import { withConflicts } from "../http/db-errors.js";
import { newInterviewLink } from "../interviews/interview-link.js";
import { positionExists } from "../positions/positions.repository.js";
import { candidateConflicts, type CandidateIntake } from "./candidate-intake.js";
import { candidateColumns, lockCandidates, updateCandidateColumns } from "./candidates.repository.js";
import type { CandidateRow } from "./candidates.tables.js";

const asConflict = <T>(what: string, work: () => Promise<T>) => withConflicts(candidateConflicts(what), work);

/**
 * Creates the candidate and its interview record (not_started, with a fresh link), atomically,
 * committed together with the other creations arriving at the same time (candidate-intake.ts).
 */
export function createCandidate(
  intake: CandidateIntake,
  interviewBaseUrl: string,
  orgId: string,
  positionId: string,
  body: CandidateCreate,
): Promise<CandidateRow> {
  return intake.create(
    orgId,
    positionId,
    {
      name: body.name,
      email: body.email,
      phone: body.phone,
      language: body.language,
      tags: body.tags ?? [],
      hired: body.hired ?? false,
      upstreamApplicationId: body.upstream_application_id ?? null,
      shortListed: body.short_listed ?? false,
    },
    newInterviewLink(interviewBaseUrl),
  );
}

/** A partial update in one statement; null when the candidate is not in this org's position. */
export async function updateCandidate(
  q: Queryable,
  orgId: string,
  positionId: string,
  candidateId: string,
  body: CandidateUpdate,
): Promise<CandidateRow | null> {
  return asConflict("Candidate not updated", () => updateCandidateColumns(q, orgId, positionId, candidateId, candidateColumns(body)));
}

/**
 * The bulk update: every entry applies or none does. A repeated id is refused (422) because the
 * outcome would depend on order; the first id not in the position answers 404 naming it.
 */
export async function bulkUpdateCandidates(
  db: Db,
  orgId: string,
  positionId: string,
  items: CandidateBulkUpdateItem[],
): Promise<CandidateRow[]> {
  const seen = new Map<string, number>();
  items.forEach((item, i) => {
    const id = item.id.toLowerCase();
    if (seen.has(id)) {
      throw validationError([{ loc: ["body", i, "id"], msg: `Candidate id repeats entry ${seen.get(id)}`, type: "value_error" }]);
    }
    seen.set(id, i);
  });
  return db.transaction(async (tx) => {
    if (!(await positionExists(tx, orgId, positionId, true))) throw notFound("Position not found");
    const found = await lockCandidates(tx, orgId, positionId, [...seen.keys()]);
    const missing = items.find((item) => !found.has(item.id.toLowerCase()));
    if (missing) throw notFound(`Candidate ${missing.id} not found in this position`);
    const updated: CandidateRow[] = [];
    for (const item of items) {
      const row = await asConflict(`Candidate ${item.id} not updated`, () =>
        updateCandidateColumns(tx, orgId, positionId, item.id, candidateColumns(item)),
      );
      updated.push(row!); // locked above, so still there
    }
    return updated;
  });
}
