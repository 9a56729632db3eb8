import { sql, type SQL } from "drizzle-orm";
import type { Queryable } from "../../../shared/db/database.js";
import type { AuditActor } from "../../../shared/ports/audit-log.js";
import type { ErasureTarget } from "./erasure-match.js";
import { rowsOf } from "./erasure.repository.js";

/**
 * What stays of an erasure (docs/privacy.md "Erasure"): the tombstones of ids, the suppressions
 * keyed without personal data, and the look-ups of the erasure routes.
 */

/** One tombstone per candidate: ids, the time, who and why (kept when one exists already). */
export async function insertTombstones(
  tx: Queryable,
  orgId: string,
  targets: readonly ErasureTarget[],
  actor: AuditActor,
  reason: string | null,
): Promise<void> {
  await tx.execute(sql`
    insert into candidate_erasures (candidate_id, organization_id, position_id, upstream_application_id, actor_sub, actor_client, reason)
    select t.id, ${orgId}::uuid, t.p, t.a, ${actor.sub}, ${actor.clientId}, ${reason}
      from unnest(${sql.param(targets.map((t) => t.id))}::uuid[], ${sql.param(targets.map((t) => t.position_id))}::uuid[],
                  ${sql.param(targets.map((t) => t.upstream_application_id))}::text[]) as t(id, p, a)
    on conflict (candidate_id) do nothing`);
}

/** One suppression per candidate with an application id or an email HMAC (`hmacs`, in the targets' order). */
export async function insertSuppressions(
  tx: Queryable,
  orgId: string,
  targets: readonly ErasureTarget[],
  hmacs: readonly (string | null)[],
): Promise<void> {
  await tx.execute(sql`
    insert into erasure_suppressions (organization_id, candidate_id, upstream_application_id, email_hmac)
    select ${orgId}::uuid, t.id, t.a, t.h
      from unnest(${sql.param(targets.map((t) => t.id))}::uuid[], ${sql.param(targets.map((t) => t.upstream_application_id))}::text[],
                  ${sql.param([...hmacs])}::text[]) as t(id, a, h)
     where t.a is not null or t.h is not null`);
}

/** The database's clock (the erasure's time in `candidate.erased`). */
export async function databaseNow(tx: Queryable): Promise<Date> {
  return new Date(rowsOf<{ now: string | Date }>(await tx.execute(sql`select now() as now`))[0]!.now);
}

/** Whether the candidate is the organisation's and of the position; locks it. */
export async function lockCandidateOfPosition(tx: Queryable, orgId: string, positionId: string, candidateId: string): Promise<boolean> {
  const found = rowsOf(
    await tx.execute(
      sql`select 1 from candidates where id = ${candidateId} and position_id = ${positionId} and organization_id = ${orgId} for update`,
    ),
  );
  return found.length > 0;
}

/** The id of the candidate's suppression, if any. */
export async function suppressionIdOf(tx: Queryable, orgId: string, candidateId: string): Promise<string | null> {
  const [row] = rowsOf<{ id: string }>(
    await tx.execute(sql`select id from erasure_suppressions where organization_id = ${orgId} and candidate_id = ${candidateId}`),
  );
  return row?.id ?? null;
}

/** Lifts the organisation's suppression; whether there was one. */
export async function deleteSuppression(q: Queryable, orgId: string, suppressionId: string): Promise<boolean> {
  const gone = rowsOf(
    await q.execute(sql`delete from erasure_suppressions where id = ${suppressionId} and organization_id = ${orgId} returning 1`),
  );
  return gone.length > 0;
}

/** SQL: whether the application `app` (text) or the email HMAC `hmac` of organisation `org` is suppressed. */
export const suppressedSql = (org: SQL, app: SQL, hmac: SQL) =>
  sql`exists (select 1 from erasure_suppressions s where s.organization_id = ${org}
                and (s.upstream_application_id = ${app} or s.email_hmac = ${hmac}))`;
