import type { CandidateBulkUpdateItem, CandidateCreate, CandidateUpdate } from "../../../contracts/recruiting/candidates.js";
import type { Db, Queryable, Tx } from "../../../shared/db/database.js";
import type { EventsOut } from "../../../shared/ports/events-out.js";
import { notFound, validationError } from "../../../shared/errors.js";
import { recordAudit, type AuditChange, type Audited } from "../audit-trail.js";
import { withConflicts } from "../http/db-errors.js";
import { newInterviewLink } from "../interviews/interview-link.js";
import { positionExists } from "../positions/positions.repository.js";
import { candidateConflicts, type CandidateIntake } from "./candidate-intake.js";
import { interviews } from "../interviews/interviews.tables.js";
import { lockInterviewStatuses } from "../interviews/interviews.repository.js";
import { assertResultsKept, resultFieldsIn } from "./candidate-results.js";
import { candidateColumns, lockCandidates, toCandidate, updateCandidateColumns, type NewCandidate } from "./candidates.repository.js";
import { candidates, type CandidateRow } from "./candidates.tables.js";

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
  return intake.create(orgId, positionId, newCandidateOf(body), newInterviewLink(interviewBaseUrl));
}

/** A candidate's creation as the audit log records it: ids only. */
export const candidateCreated = (orgId: string, candidateId: string, positionId: string): AuditChange => ({
  orgId,
  action: "candidate.created",
  resourceType: "candidate",
  resourceIds: [candidateId, positionId],
});

/** The creation body's columns, defaults applied. */
const newCandidateOf = (body: CandidateCreate): NewCandidate => ({
  name: body.name,
  email: body.email,
  phone: body.phone,
  language: body.language,
  tags: body.tags ?? [],
  hired: body.hired ?? false,
  upstreamApplicationId: body.upstream_application_id ?? null,
  shortListed: body.short_listed ?? false,
});

/**
 * The candidate, their interview record and the `candidate.created` event in the caller's
 * transaction (an idempotent create stores its key in it too), outside the group commit; the
 * caller calls `events.committed`. 404 when the position is not the org's, 409 on a taken email or
 * upstream application.
 */
export async function createCandidateIn(
  tx: Tx,
  events: EventsOut<Queryable>,
  interviewBaseUrl: string,
  orgId: string,
  positionId: string,
  body: CandidateCreate,
  audited?: Audited,
): Promise<CandidateRow> {
  if (!(await positionExists(tx, orgId, positionId, true))) throw notFound("Position not found");
  const v = newCandidateOf(body);
  const row = await asConflict("Candidate not created", async () => {
    const [created] = await tx
      .insert(candidates)
      .values({ organizationId: orgId, positionId, ...v })
      .returning();
    await tx
      .insert(interviews)
      .values({ organizationId: orgId, candidateId: created!.id, interviewLink: newInterviewLink(interviewBaseUrl) });
    return created!;
  });
  await events.record(tx, [{ orgId, type: "candidate.created", data: toCandidate(row) }]);
  await recordAudit(tx, audited, [candidateCreated(orgId, row.id, positionId)]);
  return row;
}

/** A candidate's update as the audit log records it: ids, and the score before and after when the update sets it. */
const candidateUpdated = (
  row: CandidateRow,
  scoreBefore: number | null | undefined,
  columns: { score?: number | null | undefined },
): AuditChange => ({
  orgId: row.organizationId,
  action: "candidate.updated",
  resourceType: "candidate",
  resourceIds: [row.id, row.positionId],
  ...(columns.score !== undefined && scoreBefore !== undefined ? { scoreBefore, scoreAfter: row.score } : {}),
});

/**
 * A partial update in one statement (with its event); null when the candidate is not in this org's
 * position. A body with result fields first locks the interview (candidate-results.ts): a final
 * interview's result changes only through its correction path.
 */
export async function updateCandidate(
  db: Db,
  events: EventsOut<Queryable>,
  orgId: string,
  positionId: string,
  candidateId: string,
  body: CandidateUpdate,
  audited?: Audited,
): Promise<CandidateRow | null> {
  const columns = candidateColumns(body);
  const withResults = resultFieldsIn(body).length > 0;
  const row = await asConflict("Candidate not updated", () =>
    !withResults && !audited
      ? updateCandidateColumns(db, orgId, positionId, candidateId, columns, events)
      : db.transaction(async (tx) => {
          let before: number | null | undefined;
          if (withResults) {
            const status = (await lockInterviewStatuses(tx, orgId, positionId, [candidateId])).get(candidateId);
            const held = (await lockCandidates(tx, orgId, positionId, [candidateId])).get(candidateId);
            if (!held) return null;
            assertResultsKept(status, held, body, columns);
            before = held.score;
          }
          const updated = await updateCandidateColumns(tx, orgId, positionId, candidateId, columns, events);
          if (updated) await recordAudit(tx, audited, [candidateUpdated(updated, before, columns)]);
          return updated;
        }),
  );
  events.committed([orgId]);
  return row;
}

/**
 * The bulk update: every entry applies or none does. A repeated id is refused (422) because the
 * outcome would depend on order; the first id not in the position answers 404 naming it.
 */
export async function bulkUpdateCandidates(
  db: Db,
  events: EventsOut<Queryable>,
  orgId: string,
  positionId: string,
  items: CandidateBulkUpdateItem[],
  audited?: Audited,
): Promise<CandidateRow[]> {
  const seen = new Map<string, number>();
  items.forEach((item, i) => {
    const id = item.id.toLowerCase();
    if (seen.has(id)) {
      throw validationError([{ loc: ["body", i, "id"], msg: `Candidate id repeats entry ${seen.get(id)}`, type: "value_error" }]);
    }
    seen.set(id, i);
  });
  const rows = await db.transaction(async (tx) => {
    if (!(await positionExists(tx, orgId, positionId, true))) throw notFound("Position not found");
    // Interviews before candidates, as grading locks them (candidate-results.ts), only where a result field is sent.
    const withResults = items.filter((item) => resultFieldsIn(item).length > 0).map((item) => item.id.toLowerCase());
    const statuses = await lockInterviewStatuses(tx, orgId, positionId, withResults);
    const found = await lockCandidates(tx, orgId, positionId, [...seen.keys()]);
    const missing = items.find((item) => !found.has(item.id.toLowerCase()));
    if (missing) throw notFound(`Candidate ${missing.id} not found in this position`);
    const columns = items.map((item) => candidateColumns(item));
    items.forEach((item, i) => {
      const id = item.id.toLowerCase();
      assertResultsKept(statuses.get(id), found.get(id)!, item, columns[i]!, `Candidate ${item.id}: `);
    });
    const updated: CandidateRow[] = [];
    for (const [i, item] of items.entries()) {
      const row = await asConflict(`Candidate ${item.id} not updated`, () =>
        updateCandidateColumns(tx, orgId, positionId, item.id, columns[i]!, events),
      );
      updated.push(row!); // locked above, so still there
    }
    await recordAudit(
      tx,
      audited,
      updated.map((row, i) => candidateUpdated(row, found.get(row.id)?.score, columns[i]!)),
    );
    return updated;
  });
  events.committed([orgId]);
  return rows;
}
