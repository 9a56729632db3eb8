import type { Tx } from "../../../shared/db/database.js";
import type { TemplatesChangedHook } from "../../../shared/ports/assessment-orders.js";
import { type EraseOptions, type ErasedCounts, eraseCandidatesIn } from "./erasure.js";
import { candidateIdsOfPosition, deletePositionRow, lockPosition, unlinkOrdersOfPosition } from "./position-erasure.repository.js";

/**
 * Erasing a position with its candidates (issue 41, docs/privacy.md "Erasure"): every candidate of
 * the position goes through the candidates' erasure (tombstones, suppressions, `candidate.erased`
 * audit entries and events), in batches of BATCH, then the position row is deleted and one
 * `position.erased` audit entry (ids and counts only) is recorded. A template's deletion publishes
 * the organisation's packages again (the templates hook), so the ATS no longer offers it.
 */

/** Candidates erased per statement batch (as the retention job does). */
const BATCH = 1000;

/**
 * Erases the position `positionId` of `orgId` and all its candidates in `tx`; null when the
 * organisation has no such position. Answers what was erased by kind (`positions`: 1).
 */
export async function erasePositionIn(
  tx: Tx,
  orgId: string,
  positionId: string,
  opts: EraseOptions & { onTemplates?: TemplatesChangedHook<Tx> | undefined },
): Promise<ErasedCounts | null> {
  const position = await lockPosition(tx, orgId, positionId);
  if (!position) return null;
  const counts: ErasedCounts = { candidates: 0 };
  for (;;) {
    const ids = await candidateIdsOfPosition(tx, orgId, positionId, BATCH);
    if (ids.length === 0) break;
    const batch = await eraseCandidatesIn(tx, orgId, ids, opts);
    for (const [kind, n] of Object.entries(batch.counts)) counts[kind] = (counts[kind] ?? 0) + n;
    if (batch.erased.length === 0) break;
  }
  const orders = await unlinkOrdersOfPosition(tx, orgId, positionId);
  counts["assessment_orders"] = (counts["assessment_orders"] ?? 0) + orders;
  counts["positions"] = (await deletePositionRow(tx, orgId, positionId)) ? 1 : 0;
  await opts.audit?.record(tx, {
    orgId,
    actor: opts.actor,
    action: "position.erased",
    resourceType: "position",
    resourceIds: [positionId],
    details: Object.fromEntries(Object.entries(counts).filter(([, n]) => n > 0)),
  });
  if (position.state === "template") await opts.onTemplates?.(orgId, tx);
  return counts;
}
