import { sql, type SQL } from "drizzle-orm";
import type { Queryable } from "../../../shared/db/database.js";
import { type ErasureTarget, JSON_STRING, mentions, type Needles, quotes, tokenHits } from "./erasure-match.js";

/**
 * The statements of the candidate erasure (services/recruiting/erasure/erasure.ts composes them in
 * one transaction): each removes or redacts, for the whole batch at once, what one table keeps of
 * the candidates, and answers how many rows it touched. The tombstones and suppressions are in
 * erasure-records.repository.ts.
 */

export const rowsOf = <R>(result: unknown): R[] => (result as { rows: R[] }).rows;

const count = async (q: Queryable, statement: SQL): Promise<number> => rowsOf(await q.execute(statement)).length;

const uuids = (ids: readonly string[]) => sql`${sql.param([...ids])}::uuid[]`;

/** The organisation's candidates among `ids`, locked for update, in id order. */
export async function lockErasureTargets(tx: Queryable, orgId: string, ids: readonly string[]): Promise<ErasureTarget[]> {
  return rowsOf<ErasureTarget>(
    await tx.execute(sql`
      select id, position_id, upstream_application_id, name, email, phone from candidates
       where organization_id = ${orgId} and id = any(${uuids(ids)})
       order by id for update`),
  );
}

/** How many interviews the candidates have (they go with the candidates, on delete cascade). */
export const countInterviews = (tx: Queryable, cids: readonly string[]) =>
  count(tx, sql`select 1 from interviews where candidate_id = any(${uuids(cids)})`);

/** Deletes the candidates' write-back history; answers the write-backs' ids. */
export async function deleteWriteBacks(tx: Queryable, orgId: string, cids: readonly string[]): Promise<string[]> {
  return rowsOf<{ id: string }>(
    await tx.execute(sql`delete from write_backs where org_id = ${orgId} and candidate_id = any(${uuids(cids)}) returning id`),
  ).map((r) => r.id);
}

/** Deletes the activity trail's failures logged by those write-backs or quoting a candidate. */
export const deleteActivity = (tx: Queryable, orgId: string, writeBacks: readonly string[], needles: Needles) =>
  count(
    tx,
    sql`delete from upstream_call_failures where org_id = ${orgId}
          and (write_back_id = any(${uuids(writeBacks)})
               or ${quotes(needles, sql`lower(error)`, sql`id`, sql`upstream_call_failures`, sql`org_id = ${orgId}`)}) returning 1`,
  );

/** Deletes the stored inbound webhook events whose payload names a candidate or whose message or error quotes one. */
export const deleteInboundEvents = (tx: Queryable, orgId: string, needles: Needles) =>
  count(
    tx,
    sql`delete from webhook_events
         where id in (${tokenHits(sql`id`, sql`webhook_events`, sql`org_id = ${orgId} or org_id is null`, sql`lower(payload::text)`, JSON_STRING, needles.json)})
            or ((org_id = ${orgId} or org_id is null) and (message is not null or last_error is not null)
                and ${quotes(needles, sql`lower(concat_ws(' ', message, last_error))`, sql`id`, sql`webhook_events`, sql`org_id = ${orgId} or org_id is null`)})
        returning 1`,
  );

/** Deletes the outbound events whose body names a candidate; answers their ids. */
export async function deleteOutboundMessages(tx: Queryable, orgId: string, needles: Needles): Promise<string[]> {
  return rowsOf<{ id: string }>(
    await tx.execute(sql`
      delete from webhook_messages
       where id in (${tokenHits(sql`id`, sql`webhook_messages`, sql`organization_id = ${orgId}`, sql`lower(data::text)`, JSON_STRING, needles.json)})
      returning id`),
  ).map((r) => r.id);
}

/** Deletes the pending deliveries of those outbound events. */
export const deleteDeliveries = (tx: Queryable, messages: readonly string[]) =>
  count(tx, sql`delete from webhook_deliveries where message_id = any(${uuids(messages)}) returning 1`);

/** Deletes the delivery attempts of those outbound events, and any whose response or error quotes a candidate. */
export const deleteAttempts = (tx: Queryable, orgId: string, messages: readonly string[], needles: Needles) =>
  count(
    tx,
    sql`delete from webhook_attempts a using webhook_endpoints e
         where a.endpoint_id = e.id and e.organization_id = ${orgId}
           and (a.message_id = any(${uuids(messages)})
                or ${quotes(
                  needles,
                  sql`lower(concat_ws(' ', a.response, a.error))`,
                  sql`a.ctid`,
                  sql`webhook_attempts a`,
                  sql`(a.response is not null or a.error is not null)`,
                )})
        returning 1`,
  );

/** Deletes the stored idempotent answers that name a candidate. */
export const deleteIdempotencyAnswers = (tx: Queryable, orgId: string, needles: Needles) =>
  count(
    tx,
    sql`delete from idempotency_keys
         where ctid in (${tokenHits(sql`ctid`, sql`idempotency_keys`, sql`organization_id = ${orgId}`, sql`lower(response)`, JSON_STRING, needles.json)})
        returning 1`,
  );

/** Redacts the sync runs' errors that quote a candidate. */
export const redactSyncRuns = (tx: Queryable, orgId: string, needles: Needles) =>
  count(
    tx,
    sql`update sync_runs set last_error = '[erased]' where org_id = ${orgId} and last_error is not null and ${mentions(sql`lower(last_error)`, needles.text)} returning 1`,
  );

/** Redacts the integration health reasons that quote a candidate. */
export const redactIntegrationHealth = (tx: Queryable, orgId: string, needles: Needles) =>
  count(
    tx,
    sql`update integration_health set reason = '[erased]' where org_id = ${orgId} and reason is not null and ${mentions(sql`lower(reason)`, needles.text)} returning 1`,
  );

/** Unlinks the assessment orders from the candidates (and drops their message). */
export const unlinkAssessmentOrders = (tx: Queryable, orgId: string, cids: readonly string[]) =>
  count(
    tx,
    sql`update assessment_orders set candidate_id = null, message = null where org_id = ${orgId} and candidate_id = any(${uuids(cids)}) returning 1`,
  );

/** Deletes the candidates, their interviews with them (on delete cascade); the list version moves (0203's triggers). */
export const deleteCandidateRows = (tx: Queryable, cids: readonly string[]) =>
  count(tx, sql`delete from candidates where id = any(${uuids(cids)}) returning 1`);
