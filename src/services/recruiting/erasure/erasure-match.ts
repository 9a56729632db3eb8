import { sql, type SQL } from "drizzle-orm";

/**
 * How the erasure finds what names a candidate (docs/privacy.md "Erasure"): the strings of a JSON
 * body that are one of the candidates' id, email, application id, name or phone, and free text (an
 * error, a reason) that quotes their email, name or phone. SQL fragments only; the statements that
 * use them are in erasure.repository.ts.
 */

/** The candidate being erased, as read (and locked) before anything is removed. */
export type ErasureTarget = {
  id: string;
  position_id: string;
  upstream_application_id: string | null;
  name: string;
  email: string;
  phone: string;
};

/** What to look for, lower-cased: JSON strings (as escaped in JSON), free-text needles and emails. */
export type Needles = { json: string[]; text: string[]; emails: string[]; small: boolean };

/** Up to this many candidates, free text is searched for names and phones too (a scan per needle); above, for emails. */
const SMALL_BATCH = 20;

/** Every string of a JSON text (keys and values, as escaped in the JSON): `m.v[1]`. */
export const JSON_STRING = String.raw`"((?:[^"\\]|\\.)*)"`;
/** Every email-looking word of a free text. */
const EMAIL_WORD = String.raw`([^\s<>"',;:()\[\]]+@[^\s<>"',;:()\[\]]+)`;

/** The needles of a batch of targets. */
export function needlesOf(targets: readonly ErasureTarget[]): Needles {
  const escaped = (v: string) => JSON.stringify(v.toLowerCase()).slice(1, -1);
  const json = [
    ...new Set(
      targets.flatMap((t) =>
        [t.id, t.email, t.name, t.phone, ...(t.upstream_application_id ? [t.upstream_application_id] : [])].map(escaped),
      ),
    ),
  ];
  const emails = [...new Set(targets.map((t) => t.email.toLowerCase()))];
  const text = [
    ...new Set(targets.flatMap((t) => [t.email.toLowerCase(), t.name.toLowerCase(), t.phone.toLowerCase()]).filter((v) => v.length >= 3)),
  ];
  return { json, text, emails, small: targets.length <= SMALL_BATCH };
}

/** SQL: whether `text` (lower-cased by the caller) contains any of `needles` (lower-cased): a scan per needle, for a few candidates. */
export const mentions = (text: SQL, needles: string[]) =>
  sql`exists (select 1 from unnest(${sql.param(needles)}::text[]) as n(v) where position(n.v in ${text}) > 0)`;

/**
 * SQL: the `key` of each row of `from` (with its `where`) whose lower-cased `text` holds one of
 * `needles` as a whole token of `pattern`: one hash join of every row's tokens with the needles,
 * linear in the table and the batch (a retention run erases a thousand candidates at a time).
 */
export const tokenHits = (key: SQL, from: SQL, where: SQL, text: SQL, pattern: string, needles: string[]) => sql`
  select ${key} from ${from} cross join lateral regexp_matches(${text}, ${pattern}, 'g') as m(v)
    join unnest(${sql.param(needles)}::text[]) as n(v) on n.v = m.v[1]
   where ${where}`;

/** SQL: whether the row's lower-cased free `text` quotes a candidate; `key in (…)` of `from` for a large batch. */
export const quotes = (needles: Needles, text: SQL, key: SQL, from: SQL, where: SQL) =>
  needles.small ? mentions(text, needles.text) : sql`${key} in (${tokenHits(key, from, where, text, EMAIL_WORD, needles.emails)})`;
