import { createHmac } from "node:crypto";
import { sql, type SQL } from "drizzle-orm";
import type { Db, Queryable } from "../../../shared/db/database.js";
import type { AuditActor, AuditLog } from "../../../shared/ports/audit-log.js";
import type { EventsOut } from "../../../shared/ports/events-out.js";

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

const rowsOf = <R>(result: unknown): R[] => (result as { rows: R[] }).rows;

type Target = {
  id: string;
  position_id: string;
  upstream_application_id: string | null;
  name: string;
  email: string;
  phone: string;
};

/** SQL: whether `text` (lower-cased by the caller) contains any of `needles` (lower-cased): a scan per needle, for a few candidates. */
const mentions = (text: SQL, needles: string[]) =>
  sql`exists (select 1 from unnest(${sql.param(needles)}::text[]) as n(v) where position(n.v in ${text}) > 0)`;

/** Every string of a JSON text (keys and values, as escaped in the JSON): `m.v[1]`. */
const JSON_STRING = String.raw`"((?:[^"\\]|\\.)*)"`;
/** Every email-looking word of a free text. */
const EMAIL_WORD = String.raw`([^\s<>"',;:()\[\]]+@[^\s<>"',;:()\[\]]+)`;

/**
 * SQL: the `key` of each row of `from` (with its `where`) whose lower-cased `text` holds one of
 * `needles` as a whole token of `pattern`: one hash join of every row's tokens with the needles,
 * linear in the table and the batch (a retention run erases a thousand candidates at a time).
 */
const tokenHits = (key: SQL, from: SQL, where: SQL, text: SQL, pattern: string, needles: string[]) => sql`
  select ${key} from ${from} cross join lateral regexp_matches(${text}, ${pattern}, 'g') as m(v)
    join unnest(${sql.param(needles)}::text[]) as n(v) on n.v = m.v[1]
   where ${where}`;

/** Up to this many candidates, free text is searched for names and phones too (a scan per needle); above, for emails. */
const SMALL_BATCH = 20;

const count = async (q: Queryable, statement: SQL): Promise<number> => rowsOf(await q.execute(statement)).length;

/**
 * Erases the candidates `ids` of `orgId` in `tx` (a transaction); ids of other organisations or of
 * no candidate are left alone. Answers what was erased by kind, and the candidates erased.
 */
export async function eraseCandidatesIn(
  tx: Queryable,
  orgId: string,
  ids: readonly string[],
  opts: EraseOptions,
): Promise<{ counts: ErasedCounts; erased: Target[] }> {
  const counts: ErasedCounts = {};
  if (ids.length === 0) return { counts: { candidates: 0 }, erased: [] };
  const targets = rowsOf<Target>(
    await tx.execute(sql`
      select id, position_id, upstream_application_id, name, email, phone from candidates
       where organization_id = ${orgId} and id = any(${sql.param([...ids])}::uuid[])
       order by id for update`),
  );
  if (targets.length === 0) return { counts: { candidates: 0 }, erased: [] };
  const cids = targets.map((t) => t.id);
  const escaped = (v: string) => JSON.stringify(v.toLowerCase()).slice(1, -1);
  // What names a candidate in a JSON body: a string that is its id, email, application id, name or phone.
  const jsonNeedles = [
    ...new Set(
      targets.flatMap((t) =>
        [t.id, t.email, t.name, t.phone, ...(t.upstream_application_id ? [t.upstream_application_id] : [])].map(escaped),
      ),
    ),
  ];
  // What names a candidate in free text (an error, a reason): the email, the name, the phone.
  const emails = [...new Set(targets.map((t) => t.email.toLowerCase()))];
  const textNeedles = [
    ...new Set(targets.flatMap((t) => [t.email.toLowerCase(), t.name.toLowerCase(), t.phone.toLowerCase()]).filter((v) => v.length >= 3)),
  ];
  /** SQL: whether the row's lower-cased free `text` quotes a candidate; `key in (…)` of `from` for a large batch. */
  const quotes = (text: SQL, key: SQL, from: SQL, where: SQL) =>
    targets.length <= SMALL_BATCH ? mentions(text, textNeedles) : sql`${key} in (${tokenHits(key, from, where, text, EMAIL_WORD, emails)})`;
  const idsParam = sql`${sql.param(cids)}::uuid[]`;

  counts["interviews"] = await count(tx, sql`select 1 from interviews where candidate_id = any(${idsParam})`);
  // Write-backs first: their failures in the activity trail point at them.
  const writeBacks = rowsOf<{ id: string }>(
    await tx.execute(sql`delete from write_backs where org_id = ${orgId} and candidate_id = any(${idsParam}) returning id`),
  ).map((r) => r.id);
  counts["write_backs"] = writeBacks.length;
  counts["activity"] = await count(
    tx,
    sql`delete from upstream_call_failures where org_id = ${orgId}
          and (write_back_id = any(${sql.param(writeBacks)}::uuid[])
               or ${quotes(sql`lower(error)`, sql`id`, sql`upstream_call_failures`, sql`org_id = ${orgId}`)}) returning 1`,
  );
  counts["webhook_events"] = await count(
    tx,
    sql`delete from webhook_events
         where id in (${tokenHits(sql`id`, sql`webhook_events`, sql`org_id = ${orgId} or org_id is null`, sql`lower(payload::text)`, JSON_STRING, jsonNeedles)})
            or ((org_id = ${orgId} or org_id is null) and (message is not null or last_error is not null)
                and ${quotes(sql`lower(concat_ws(' ', message, last_error))`, sql`id`, sql`webhook_events`, sql`org_id = ${orgId} or org_id is null`)})
        returning 1`,
  );
  // Outbound events that carried them, with every attempt's excerpt and headers and any pending retry.
  const messages = rowsOf<{ id: string }>(
    await tx.execute(sql`
      delete from webhook_messages
       where id in (${tokenHits(sql`id`, sql`webhook_messages`, sql`organization_id = ${orgId}`, sql`lower(data::text)`, JSON_STRING, jsonNeedles)})
      returning id`),
  ).map((r) => r.id);
  counts["webhook_messages"] = messages.length;
  const messageIds = sql`${sql.param(messages)}::uuid[]`;
  counts["webhook_deliveries"] = await count(tx, sql`delete from webhook_deliveries where message_id = any(${messageIds}) returning 1`);
  counts["webhook_attempts"] = await count(
    tx,
    sql`delete from webhook_attempts a using webhook_endpoints e
         where a.endpoint_id = e.id and e.organization_id = ${orgId}
           and (a.message_id = any(${messageIds})
                or ${quotes(
                  sql`lower(concat_ws(' ', a.response, a.error))`,
                  sql`a.ctid`,
                  sql`webhook_attempts a`,
                  sql`(a.response is not null or a.error is not null)`,
                )})
        returning 1`,
  );
  counts["idempotency_keys"] = await count(
    tx,
    sql`delete from idempotency_keys
         where ctid in (${tokenHits(sql`ctid`, sql`idempotency_keys`, sql`organization_id = ${orgId}`, sql`lower(response)`, JSON_STRING, jsonNeedles)})
        returning 1`,
  );
  counts["sync_runs"] = await count(
    tx,
    sql`update sync_runs set last_error = '[erased]' where org_id = ${orgId} and last_error is not null and ${mentions(sql`lower(last_error)`, textNeedles)} returning 1`,
  );
  counts["integration_health"] = await count(
    tx,
    sql`update integration_health set reason = '[erased]' where org_id = ${orgId} and reason is not null and ${mentions(sql`lower(reason)`, textNeedles)} returning 1`,
  );
  counts["assessment_orders"] = await count(
    tx,
    sql`update assessment_orders set candidate_id = null, message = null where org_id = ${orgId} and candidate_id = any(${idsParam}) returning 1`,
  );
  // The candidates, their interviews with them (on delete cascade); the list version moves (0203's triggers).
  counts["candidates"] = await count(tx, sql`delete from candidates where id = any(${idsParam}) returning 1`);

  // What stays: ids, the time, who and why.
  await tx.execute(sql`
    insert into candidate_erasures (candidate_id, organization_id, position_id, upstream_application_id, actor_sub, actor_client, reason)
    select t.id, ${orgId}::uuid, t.p, t.a, ${opts.actor.sub}, ${opts.actor.clientId}, ${opts.reason}
      from unnest(${idsParam}, ${sql.param(targets.map((t) => t.position_id))}::uuid[],
                  ${sql.param(targets.map((t) => t.upstream_application_id))}::text[]) as t(id, p, a)
    on conflict (candidate_id) do nothing`);
  await tx.execute(sql`
    insert into erasure_suppressions (organization_id, candidate_id, upstream_application_id, email_hmac)
    select ${orgId}::uuid, t.id, t.a, t.h
      from unnest(${idsParam}, ${sql.param(targets.map((t) => t.upstream_application_id))}::text[],
                  ${sql.param(targets.map((t) => (opts.suppressEmail ? emailHmac(opts.key, t.email) : null)))}::text[]) as t(id, a, h)
     where t.a is not null or t.h is not null`);
  await opts.audit?.record(
    tx,
    targets.map((t) => ({
      orgId,
      actor: opts.actor,
      action: "candidate.erased",
      resourceType: "candidate",
      resourceIds: [t.id, t.position_id],
      details: { ...Object.fromEntries(Object.entries(counts).filter(([, n]) => n > 0)) },
    })),
  );
  const erasedAt = rowsOf<{ now: string | Date }>(await tx.execute(sql`select now() as now`))[0]!.now;
  await opts.events?.record(
    tx,
    targets.map((t) => ({
      orgId,
      type: "candidate.erased" as const,
      data: {
        id: t.id,
        position_id: t.position_id,
        upstream_application_id: t.upstream_application_id,
        erased_at: new Date(erasedAt).toISOString(),
      },
    })),
  );
  return { counts, erased: targets };
}

/** The same in a transaction of its own on `db`; tells outbound webhooks when it committed. */
export async function eraseCandidates(db: Db, orgId: string, ids: readonly string[], opts: EraseOptions): Promise<ErasedCounts> {
  const { counts, erased } = await db.transaction((tx) => eraseCandidatesIn(tx, orgId, ids, opts));
  if (erased.length > 0) opts.events?.committed([orgId]);
  return counts;
}

/** SQL: whether the application `app` (text) or the email HMAC `hmac` of organisation `org` is suppressed. */
export const suppressedSql = (org: SQL, app: SQL, hmac: SQL) =>
  sql`exists (select 1 from erasure_suppressions s where s.organization_id = ${org}
                and (s.upstream_application_id = ${app} or s.email_hmac = ${hmac}))`;
