import { createHmac } from "node:crypto";
import type { Db, Queryable } from "../../../shared/db/database.js";
import type { AuditActor, AuditLog } from "../../../shared/ports/audit-log.js";
import type { EventsOut } from "../../../shared/ports/events-out.js";
import { type ErasureTarget, needlesOf } from "./erasure-match.js";
import { databaseNow, insertSuppressions, insertTombstones } from "./erasure-records.repository.js";
import {
  countInterviews,
  deleteActivity,
  deleteAttempts,
  deleteCandidateRows,
  deleteDeliveries,
  deleteIdempotencyAnswers,
  deleteInboundEvents,
  deleteOutboundMessages,
  deleteWriteBacks,
  lockErasureTargets,
  redactIntegrationHealth,
  redactSyncRuns,
  unlinkAssessmentOrders,
} from "./erasure.repository.js";

/**
 * Candidate erasure (issue 41, docs/privacy.md "Erasure"): the one path that removes candidates'
 * personal data from every place Hirebridge keeps it, used by the API's DELETE of a candidate and
 * by the retention job. In the caller's transaction, set-based (one statement per table for the
 * whole batch): the candidate and interview rows; the stored inbound webhook events, outbound
 * event bodies (with their attempts and pending deliveries) and idempotency answers that name
 * them; their write-back history (with its notes' text and the failures it logged); the free text
 * of the activity trail, the sync runs and integration health that quotes them; the assessment
 * orders' link to them. What stays is a tombstone of ids (candidate_erasures), a suppression keyed
 * without personal data (erasure_suppressions), one audit entry and one `candidate.erased` event
 * per candidate, ids only. The candidate list cache follows by itself: the delete raises the
 * position's list version (migrations/0203), so no instance answers the list it built before.
 * The ATS keeps its own copy of the application, which the customer erases there.
 */

/** How an erasure is asked for: who, why, and whether the person's email is suppressed too. */
export type EraseOptions = {
  actor: AuditActor;
  reason: string | null;
  /**
   * Suppress new applications of the same email (an erasure request: the person asked to be
   * forgotten), not only the erased applications (a retention erasure).
   */
  suppressEmail: boolean;
  /** ERASURE_SUPPRESSION_SECRET: the key of the email's HMAC. */
  key: string;
  audit?: AuditLog<Queryable, Db> | undefined;
  events?: EventsOut<Queryable> | undefined;
};

/** Rows erased, by kind (what the API answers as `erased`). */
export type ErasedCounts = Record<string, number>;

/** The keyed hash of a lower-cased email kept in a suppression (no email is stored). */
export const emailHmac = (key: string, email: string): string => createHmac("sha256", key).update(email.trim().toLowerCase()).digest("hex");

/**
 * Erases the candidates `ids` of `orgId` in `tx` (a transaction); ids of other organisations or of
 * no candidate are left alone. Answers what was erased by kind, and the candidates erased.
 */
export async function eraseCandidatesIn(
  tx: Queryable,
  orgId: string,
  ids: readonly string[],
  opts: EraseOptions,
): Promise<{ counts: ErasedCounts; erased: ErasureTarget[] }> {
  if (ids.length === 0) return { counts: { candidates: 0 }, erased: [] };
  const targets = await lockErasureTargets(tx, orgId, ids);
  if (targets.length === 0) return { counts: { candidates: 0 }, erased: [] };
  const counts = await eraseData(tx, orgId, targets);
  // What stays: ids, the time, who and why.
  await insertTombstones(tx, orgId, targets, opts.actor, opts.reason);
  const hmacs = targets.map((t) => (opts.suppressEmail ? emailHmac(opts.key, t.email) : null));
  await insertSuppressions(tx, orgId, targets, hmacs);
  await recordErased(tx, orgId, targets, counts, opts);
  return { counts, erased: targets };
}

/** Removes or redacts what every table keeps of `targets`; answers the rows touched by kind. */
async function eraseData(tx: Queryable, orgId: string, targets: readonly ErasureTarget[]): Promise<ErasedCounts> {
  const cids = targets.map((t) => t.id);
  const needles = needlesOf(targets);
  const counts: ErasedCounts = {};
  counts["interviews"] = await countInterviews(tx, cids);
  // Write-backs first: their failures in the activity trail point at them.
  const writeBacks = await deleteWriteBacks(tx, orgId, cids);
  counts["write_backs"] = writeBacks.length;
  counts["activity"] = await deleteActivity(tx, orgId, writeBacks, needles);
  counts["webhook_events"] = await deleteInboundEvents(tx, orgId, needles);
  // Outbound events that carried them, with every attempt's excerpt and headers and any pending retry.
  const messages = await deleteOutboundMessages(tx, orgId, needles);
  counts["webhook_messages"] = messages.length;
  counts["webhook_deliveries"] = await deleteDeliveries(tx, messages);
  counts["webhook_attempts"] = await deleteAttempts(tx, orgId, messages, needles);
  counts["idempotency_keys"] = await deleteIdempotencyAnswers(tx, orgId, needles);
  counts["sync_runs"] = await redactSyncRuns(tx, orgId, needles);
  counts["integration_health"] = await redactIntegrationHealth(tx, orgId, needles);
  counts["assessment_orders"] = await unlinkAssessmentOrders(tx, orgId, cids);
  counts["candidates"] = await deleteCandidateRows(tx, cids);
  return counts;
}

/** One `candidate.erased` audit entry and outbound event per candidate, ids only. */
async function recordErased(
  tx: Queryable,
  orgId: string,
  targets: readonly ErasureTarget[],
  counts: ErasedCounts,
  opts: EraseOptions,
): Promise<void> {
  const details = Object.fromEntries(Object.entries(counts).filter(([, n]) => n > 0));
  await opts.audit?.record(
    tx,
    targets.map((t) => ({
      orgId,
      actor: opts.actor,
      action: "candidate.erased",
      resourceType: "candidate",
      resourceIds: [t.id, t.position_id],
      details: { ...details },
    })),
  );
  if (!opts.events) return;
  const erasedAt = (await databaseNow(tx)).toISOString();
  await opts.events.record(
    tx,
    targets.map((t) => ({
      orgId,
      type: "candidate.erased" as const,
      data: { id: t.id, position_id: t.position_id, upstream_application_id: t.upstream_application_id, erased_at: erasedAt },
    })),
  );
}

/** The same in a transaction of its own on `db`; tells outbound webhooks when it committed. */
export async function eraseCandidates(db: Db, orgId: string, ids: readonly string[], opts: EraseOptions): Promise<ErasedCounts> {
  const { counts, erased } = await db.transaction((tx) => eraseCandidatesIn(tx, orgId, ids, opts));
  if (erased.length > 0) opts.events?.committed([orgId]);
  return counts;
}

/** SQL: whether an application or email HMAC of an organisation is suppressed (used by the sync's candidate upsert). */
export { suppressedSql } from "./erasure-records.repository.js";
