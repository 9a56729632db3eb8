import { eq, sql, type SQL } from "drizzle-orm";
import type { CandidateExport } from "../../../contracts/recruiting/candidate-export.js";
import type { Db, Queryable } from "../../../shared/db/database.js";
import { toInterview } from "../interviews/interviews.repository.js";
import { interviews } from "../interviews/interviews.tables.js";
import { positions } from "../positions/positions.tables.js";
import {
  type AttemptRow,
  type AuditRow,
  type DeliveryRow,
  gradingsOf,
  type InboundRow,
  iso,
  isoOrNull,
  type MessageRow,
  type OrderRow,
  parsed,
  rowsOf,
  toAssessmentOrder,
  toAuditView,
  toUpstreamCall,
  toWriteBack,
  type UpstreamCallRow,
  type WriteBackRow,
} from "./candidate-export.rows.js";
import { findCandidate, toCandidate } from "./candidates.repository.js";

/**
 * What an export reads (docs/privacy.md, "Export"): the candidate and interview through the
 * recruiting repositories, and by plain SQL the rows other modules keep about the candidate (the
 * sync's write-backs, failed upstream calls, inbound events and assessment orders, the outbound
 * webhooks' messages and attempts, the audit log), as the retention module reads them: their
 * columns only, never their code. Every statement names the organisation.
 */

/** Whether the json/jsonb text `column` holds `value` as a whole JSON string (ids are quoted in JSON). */
const namesId = (column: SQL, value: string): SQL => sql`position(${JSON.stringify(value)} in ${column}::text) > 0`;

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

/** What the sync module keeps about the candidate: their write-backs, those write-backs' failed calls, their assessment order. */
async function syncRows(q: Queryable, orgId: string, candidateId: string) {
  const writeBacks = rowsOf<WriteBackRow>(
    await q.execute(sql`
      select id, integration_id, application_id, interview_id, outcome, target_stage, target_stage_name, candidate_name,
        position_name, correction_reason, assessment_order_id, state, attempts, last_error, stage_moved_at, link_added_at,
        note_added_at, created_at, updated_at
      from write_backs where org_id = ${orgId} and candidate_id = ${candidateId} order by created_at, id`),
  );
  const upstreamCalls = rowsOf<UpstreamCallRow>(
    await q.execute(sql`
      select f.id, f.integration_id, f.write_back_id, f.operation, f.upstream_status, f.error, f.count, f.created_at, f.last_at
      from upstream_call_failures f join write_backs w on w.id = f.write_back_id
      where f.org_id = ${orgId} and w.org_id = ${orgId} and w.candidate_id = ${candidateId} order by f.created_at, f.id`),
  );
  const [order] = rowsOf<OrderRow>(
    await q.execute(sql`
      select id, integration_id, order_id, package_id, inline, status, result_status, message, created_at, updated_at
      from assessment_orders where org_id = ${orgId} and candidate_id = ${candidateId} order by created_at limit 1`),
  );
  return { writeBacks, upstreamCalls, order };
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
      const { writeBacks, upstreamCalls, order } = await syncRows(tx, orgId, candidateId);
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
      return {
        exported_at: new Date().toISOString(),
        organization_id: orgId,
        position: { id: positionId, name: position?.name ?? "" },
        candidate: toCandidate(candidate),
        interview: interview ? toInterview(interview) : null,
        grading_history: gradingsOf(audit),
        write_backs: writeBacks.map(toWriteBack),
        upstream_calls: upstreamCalls.map(toUpstreamCall),
        inbound_events: await inboundEvents(tx, orgId, candidateId, upstreamIds, position?.integrationId ?? null),
        outbound_events: await outboundEvents(tx, orgId, candidateId),
        assessment_order: order ? toAssessmentOrder(order) : null,
        audit_entries: audit,
      };
    },
    { isolationLevel: "repeatable read", accessMode: "read only" },
  );
}
