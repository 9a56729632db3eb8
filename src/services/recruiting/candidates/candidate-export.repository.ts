import { eq, sql, type SQL } from "drizzle-orm";
import type { AuditEntryView } from "../../../contracts/recruiting/audit-log.js";
import type { CandidateExport } from "../../../contracts/recruiting/candidate-export.js";
import type { Db, Queryable } from "../../../shared/db/database.js";
import { toInterview } from "../interviews/interviews.repository.js";
import { interviews } from "../interviews/interviews.tables.js";
import { positions } from "../positions/positions.tables.js";
import { findCandidate, toCandidate } from "./candidates.repository.js";

/**
 * What an export reads (docs/privacy.md, "Export"): the candidate and interview through the
 * recruiting repositories, and by plain SQL the rows other modules keep about the candidate (the
 * sync's write-backs, failed upstream calls, inbound events and assessment orders, the outbound
 * webhooks' messages and attempts, the audit log), as the retention module reads them: their
 * columns only, never their code. Every statement names the organisation.
 */

const rowsOf = <R>(result: unknown): R[] => (result as { rows: R[] }).rows;
type Time = Date | string;
const iso = (t: Time): string => new Date(t).toISOString();
const isoOrNull = (t: Time | null): string | null => (t === null ? null : iso(t));
/** A json column: node-postgres and PGlite parse it; a driver that hands back text is parsed here. */
const parsed = (v: unknown): unknown => (typeof v === "string" ? JSON.parse(v) : v);

/** Whether the json/jsonb text `column` holds `value` as a whole JSON string (ids are quoted in JSON). */
const namesId = (column: SQL, value: string): SQL => sql`position(${JSON.stringify(value)} in ${column}::text) > 0`;

type GradingRow = {
  action: string;
  occurred_at: Time;
  actor_sub: string;
  actor_client: string | null;
  score_before: number | null;
  score_after: number | null;
};
type AuditRow = GradingRow & {
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
type WriteBackRow = {
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
type UpstreamCallRow = {
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
type InboundRow = {
  id: string;
  type: string;
  integration_id: string | null;
  status: string;
  received_at: Time;
  processed_at: Time | null;
  payload: unknown;
};
type MessageRow = { id: string; type: string; created_at: Time; data: unknown };
type DeliveryRow = { message_id: string; endpoint_id: string; attempts: number; next_attempt_at: Time };
type AttemptRow = {
  message_id: string;
  endpoint_id: string;
  attempt: number;
  attempted_at: Time;
  status_code: number | null;
  ok: boolean;
  error: string | null;
  response: string | null;
};
type OrderRow = {
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

const toAuditView = (r: AuditRow): AuditEntryView => ({
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

const toWriteBack = (r: WriteBackRow): CandidateExport["write_backs"][number] => ({
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

/** The audit log's entries of the organisation naming any of `ids`, oldest first. */
async function auditEntriesNaming(q: Queryable, orgId: string, ids: string[]): Promise<AuditRow[]> {
  const list = sql.join(
    ids.map((id) => sql`${id}`),
    sql`, `,
  );
  return rowsOf<AuditRow>(
    await q.execute(sql`
      select id, seq, occurred_at, actor_sub, actor_client, action, resource_type, resource_ids, request_id, source_address,
        score_before, score_after, details, prev_hash, hash
      from audit_log where organization_id = ${orgId} and resource_ids && array[${list}]::text[]
      order by seq`),
  );
}

/** The outbound events of the organisation whose data names the candidate, with their deliveries and attempts. */
async function outboundEvents(q: Queryable, orgId: string, candidateId: string): Promise<CandidateExport["outbound_events"]> {
  const messages = rowsOf<MessageRow>(
    await q.execute(sql`
      select id, type, created_at, data from webhook_messages
      where organization_id = ${orgId} and ${namesId(sql`data`, candidateId)}
      order by id`),
  );
  if (messages.length === 0) return [];
  const ids = sql.join(
    messages.map((m) => sql`${m.id}`),
    sql`, `,
  );
  const deliveries = rowsOf<DeliveryRow>(
    await q.execute(sql`
      select message_id, endpoint_id, attempts, next_attempt_at from webhook_deliveries
      where message_id in (${ids}) order by endpoint_id`),
  );
  const attempts = rowsOf<AttemptRow>(
    await q.execute(sql`
      select message_id, endpoint_id, attempt, attempted_at, status_code, ok, error, response from webhook_attempts
      where message_id in (${ids}) order by attempted_at, endpoint_id, attempt`),
  );
  return messages.map((m) => ({
    id: m.id,
    type: m.type,
    created_at: iso(m.created_at),
    data: parsed(m.data),
    deliveries: deliveries
      .filter((d) => d.message_id === m.id)
      .map((d) => ({ endpoint_id: d.endpoint_id, attempts: d.attempts, next_attempt_at: iso(d.next_attempt_at) })),
    attempts: attempts
      .filter((a) => a.message_id === m.id)
      .map((a) => ({
        endpoint_id: a.endpoint_id,
        attempt: a.attempt,
        attempted_at: iso(a.attempted_at),
        status_code: a.status_code,
        ok: a.ok,
        error: a.error,
        response: a.response,
      })),
  }));
}

/**
 * Inbound events naming the candidate's id or one of `upstreamIds` (their applications, their
 * assessment order): the organisation's, and
 * those stored before any organisation owned the integration the candidate's position is linked to.
 */
async function inboundEvents(
  q: Queryable,
  orgId: string,
  candidateId: string,
  upstreamIds: string[],
  integrationId: string | null,
): Promise<CandidateExport["inbound_events"]> {
  const named = sql.join(
    [candidateId, ...upstreamIds].map((id) => namesId(sql`payload`, id)),
    sql` or `,
  );
  const rows = rowsOf<InboundRow>(
    await q.execute(sql`
      select id, type, integration_id, status, received_at, processed_at, payload from webhook_events
      where (org_id = ${orgId} or (org_id is null and integration_id = ${integrationId})) and (${named})
      order by received_at, id`),
  );
  return rows.map((r) => ({
    id: r.id,
    type: r.type,
    integration_id: r.integration_id,
    status: r.status,
    received_at: iso(r.received_at),
    processed_at: isoOrNull(r.processed_at),
    payload: parsed(r.payload),
  }));
}

/**
 * Everything held about the candidate, read in one read-only snapshot (repeatable read), so the
 * parts agree with each other; null when the organisation's position has no such candidate (then
 * nothing else is read).
 */
export async function readCandidateExport(db: Db, orgId: string, positionId: string, candidateId: string): Promise<CandidateExport | null> {
  return db.transaction(
    async (tx) => {
      const candidate = await findCandidate(tx, orgId, positionId, candidateId);
      if (!candidate) return null;
      const [position] = await tx
        .select({ id: positions.id, name: positions.name, integrationId: positions.upstreamIntegrationId })
        .from(positions)
        .where(eq(positions.id, positionId));
      const [interview] = await tx.select().from(interviews).where(eq(interviews.candidateId, candidateId));
      const writeBacks = rowsOf<WriteBackRow>(
        await tx.execute(sql`
          select id, integration_id, application_id, interview_id, outcome, target_stage, target_stage_name, candidate_name,
            position_name, correction_reason, assessment_order_id, state, attempts, last_error, stage_moved_at, link_added_at,
            note_added_at, created_at, updated_at
          from write_backs where org_id = ${orgId} and candidate_id = ${candidateId} order by created_at, id`),
      );
      const upstreamCalls = rowsOf<UpstreamCallRow>(
        await tx.execute(sql`
          select f.id, f.integration_id, f.write_back_id, f.operation, f.upstream_status, f.error, f.count, f.created_at, f.last_at
          from upstream_call_failures f join write_backs w on w.id = f.write_back_id
          where f.org_id = ${orgId} and w.org_id = ${orgId} and w.candidate_id = ${candidateId} order by f.created_at, f.id`),
      );
      const [order] = rowsOf<OrderRow>(
        await tx.execute(sql`
          select id, integration_id, order_id, package_id, inline, status, result_status, message, created_at, updated_at
          from assessment_orders where org_id = ${orgId} and candidate_id = ${candidateId} order by created_at limit 1`),
      );
      // The upstream ids that name the candidate in an inbound event: their applications and their assessment order.
      const upstreamIds = [
        ...new Set(
          [
            candidate.upstreamApplicationId,
            candidate.upstreamAssessmentOrderId,
            order?.order_id,
            ...writeBacks.map((w) => w.application_id),
          ].filter((x): x is string => !!x),
        ),
      ];
      const audit = (await auditEntriesNaming(tx, orgId, interview ? [candidateId, interview.id] : [candidateId])).map(toAuditView);
      const grading = audit.filter((e) => e.action === "interview.graded" || e.action === "interview.corrected");
      return {
        exported_at: new Date().toISOString(),
        organization_id: orgId,
        position: { id: positionId, name: position?.name ?? "" },
        candidate: toCandidate(candidate),
        interview: interview ? toInterview(interview) : null,
        grading_history: grading.map((e) => ({
          action: e.action,
          occurred_at: e.occurred_at,
          actor: e.actor,
          score_before: e.score_before,
          score_after: e.score_after,
        })),
        write_backs: writeBacks.map(toWriteBack),
        upstream_calls: upstreamCalls.map((r) => ({
          id: r.id,
          integration_id: r.integration_id,
          write_back_id: r.write_back_id,
          operation: r.operation,
          upstream_status: r.upstream_status,
          error: r.error,
          count: r.count,
          created_at: iso(r.created_at),
          last_at: iso(r.last_at),
        })),
        inbound_events: await inboundEvents(tx, orgId, candidateId, upstreamIds, position?.integrationId ?? null),
        outbound_events: await outboundEvents(tx, orgId, candidateId),
        assessment_order: order
          ? {
              id: order.id,
              integration_id: order.integration_id,
              order_id: order.order_id,
              package_id: order.package_id,
              inline: order.inline,
              status: order.status,
              result_status: order.result_status,
              message: order.message,
              created_at: iso(order.created_at),
              updated_at: iso(order.updated_at),
            }
          : null,
        audit_entries: audit,
      };
    },
    { isolationLevel: "repeatable read", accessMode: "read only" },
  );
}
