import type { AuditEntryView } from "../../../contracts/recruiting/audit-log.js";
import type { CandidateExport } from "../../../contracts/recruiting/candidate-export.js";

/**
 * The rows an export reads from other modules' tables (their columns, as selected in
 * candidate-export.repository.ts) and how each becomes its part of the document.
 */

export const rowsOf = <R>(result: unknown): R[] => (result as { rows: R[] }).rows;
export type Time = Date | string;
export const iso = (t: Time): string => new Date(t).toISOString();
export const isoOrNull = (t: Time | null): string | null => (t === null ? null : iso(t));
/** A json column: node-postgres and PGlite parse it; a driver that hands back text is parsed here. */
export const parsed = (v: unknown): unknown => (typeof v === "string" ? JSON.parse(v) : v);

type GradingRow = {
  action: string;
  occurred_at: Time;
  actor_sub: string;
  actor_client: string | null;
  score_before: number | null;
  score_after: number | null;
};
export type AuditRow = GradingRow & {
  id: string;
  seq: string | number;
  resource_type: string;
  resource_ids: string[];
  request_id: string | null;
  source_address: string | null;
  details: Record<string, number | boolean | null> | string;
  prev_hash: string;
  hash: string;
};
export type WriteBackRow = {
  id: string;
  integration_id: string;
  application_id: string;
  interview_id: string;
  outcome: string;
  target_stage: string | null;
  target_stage_name: string | null;
  candidate_name: string | null;
  position_name: string | null;
  correction_reason: string | null;
  assessment_order_id: string | null;
  state: string;
  attempts: number;
  last_error: string | null;
  stage_moved_at: Time | null;
  link_added_at: Time | null;
  note_added_at: Time | null;
  created_at: Time;
  updated_at: Time;
};
export type UpstreamCallRow = {
  id: string;
  integration_id: string;
  write_back_id: string | null;
  operation: string;
  upstream_status: number | null;
  error: string;
  count: number;
  created_at: Time;
  last_at: Time;
};
export type InboundRow = {
  id: string;
  type: string;
  integration_id: string | null;
  status: string;
  received_at: Time;
  processed_at: Time | null;
  payload: unknown;
};
export type MessageRow = { id: string; type: string; created_at: Time; data: unknown };
export type DeliveryRow = { message_id: string; endpoint_id: string; attempts: number; next_attempt_at: Time };
export type AttemptRow = {
  message_id: string;
  endpoint_id: string;
  attempt: number;
  attempted_at: Time;
  status_code: number | null;
  ok: boolean;
  error: string | null;
  response: string | null;
};
export type OrderRow = {
  id: string;
  integration_id: string;
  order_id: string;
  package_id: string;
  inline: boolean;
  status: string;
  result_status: string;
  message: string | null;
  created_at: Time;
  updated_at: Time;
};

const actorOf = (r: GradingRow) => ({ sub: r.actor_sub, client_id: r.actor_client });

export const toAuditView = (r: AuditRow): AuditEntryView => ({
  id: r.id,
  seq: Number(r.seq),
  occurred_at: iso(r.occurred_at),
  actor: actorOf(r),
  action: r.action,
  resource_type: r.resource_type,
  resource_ids: r.resource_ids,
  request_id: r.request_id,
  source_address: r.source_address,
  score_before: r.score_before,
  score_after: r.score_after,
  details: parsed(r.details) as AuditEntryView["details"],
  prev_hash: r.prev_hash,
  hash: r.hash,
});

export const toWriteBack = (r: WriteBackRow): CandidateExport["write_backs"][number] => ({
  id: r.id,
  integration_id: r.integration_id,
  application_id: r.application_id,
  interview_id: r.interview_id,
  outcome: r.outcome,
  target_stage: r.target_stage,
  target_stage_name: r.target_stage_name,
  candidate_name: r.candidate_name,
  position_name: r.position_name,
  correction_reason: r.correction_reason,
  assessment_order_id: r.assessment_order_id,
  state: r.state,
  attempts: r.attempts,
  last_error: r.last_error,
  stage_moved_at: isoOrNull(r.stage_moved_at),
  link_added_at: isoOrNull(r.link_added_at),
  note_added_at: isoOrNull(r.note_added_at),
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
});

export const toUpstreamCall = (r: UpstreamCallRow): CandidateExport["upstream_calls"][number] => ({
  id: r.id,
  integration_id: r.integration_id,
  write_back_id: r.write_back_id,
  operation: r.operation,
  upstream_status: r.upstream_status,
  error: r.error,
  count: r.count,
  created_at: iso(r.created_at),
  last_at: iso(r.last_at),
});

export const toAssessmentOrder = (o: OrderRow): NonNullable<CandidateExport["assessment_order"]> => ({
  id: o.id,
  integration_id: o.integration_id,
  order_id: o.order_id,
  package_id: o.package_id,
  inline: o.inline,
  status: o.status,
  result_status: o.result_status,
  message: o.message,
  created_at: iso(o.created_at),
  updated_at: iso(o.updated_at),
});

/** The gradings and corrections among the audit entries (oldest first, as they are). */
export const gradingsOf = (audit: AuditEntryView[]): CandidateExport["grading_history"] =>
  audit
    .filter((e) => e.action === "interview.graded" || e.action === "interview.corrected")
    .map((e) => ({
      action: e.action,
      occurred_at: e.occurred_at,
      actor: e.actor,
      score_before: e.score_before,
      score_after: e.score_after,
    }));
