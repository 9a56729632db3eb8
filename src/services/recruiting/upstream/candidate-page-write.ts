import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import type { Queryable } from "../../../shared/db/database.js";
import { uuidv7s } from "../../../shared/db/uuid7.js";
import type { EventsOut } from "../../../shared/ports/events-out.js";
import type { PositionedApplication } from "../../../shared/ports/recruiting-sync.js";
import { NO_EVENTS_OUT } from "../../../shared/no-events-out.js";
import { cut } from "../../../shared/text.js";
import { candidateJsonText } from "../candidates/candidate-json.js";
import { emailHmac, suppressedSql } from "../erasure/erasure.js";
import type { PageRecording } from "./sync-page-record.js";
import { upsertEvents } from "./upsert-events.js";

/**
 * A page of applications written as candidates in one statement (PAGE_WRITE) and the statement's
 * input (pageInput); upstream-candidates.repository.ts runs it and sorts out what it leaves.
 */

export type SkippedApplication = {
  upstream_application_id: string;
  reason: "email_taken" | "duplicate_email_in_page";
};

/** The statement's input rows, one jsonb parameter (field names kept short: it is sent per page). */
export type InputRow = {
  n: number;
  /** Ids for a new candidate and its interview (time-ordered, see uuid7.ts); unused for existing ones. */
  cid: string;
  iid: string;
  p: string;
  a: string;
  name: string;
  email: string;
  phone: string | null;
  lang: string;
  tags: string[];
  link: string;
  /** The email's HMAC (ERASURE_SUPPRESSION_SECRET), matched against erased candidates' suppressions; null without the key. */
  h: string | null;
};

/**
 * The page's write, one statement: the applications (one jsonb parameter) are matched to the
 * candidate holding their email in their position; those with no such candidate, or whose
 * candidate is theirs already, are upserted on (position, application) — a row whose upstream
 * fields did not change is left alone (no new row version) — and every new candidate gets its
 * interview record in the same statement. Answers the rows written, and the applications whose
 * email belongs to another candidate (`n` = their index in the input) for the caller to sort out.
 * With `recording` (and the applications pageInput skipped, for the record's count), the page
 * is written and recorded only when its row is locked and no application meets such a candidate
 * (nothing else is written then); it answers those applications, and one row whose `recorded`
 * says whether the page was.
 */
export const PAGE_WRITE = (
  org: string,
  base: string,
  input: string,
  opts: { recording?: { to: PageRecording; skipped: number }; events?: EventsOut<Queryable> } = {},
) => {
  const { recording } = opts;
  const met = sql`mail_id is not null and mail_app is distinct from a`;
  const ok = sql`(select ok from ok)`;
  // candidate.created / candidate.updated for the rows `up` writes (the outbox port): nothing built unless subscribed.
  const events = upsertEvents(opts.events ?? NO_EVENTS_OUT, {
    kind: "candidate",
    orgId: org,
    rows: "up",
    target: "c",
    json: candidateJsonText,
  });
  return sql`
  with ${recording ? sql`lk as materialized (${recording.to.lock}), ` : sql``}i as (
    select * from jsonb_to_recordset(${input}::jsonb)
      as i(n int, cid uuid, iid uuid, p uuid, a text, name text, email text, phone text, lang text, tags text[], link text, h text)
     -- An erased candidate stays erased (erasure/erasure.ts): their application, or their email's HMAC, is suppressed.
     where not ${suppressedSql(sql`${org}::uuid`, sql`i.a`, sql`i.h`)}
  ), m as (
    select i.*, c.id as mail_id, c.upstream_application_id as mail_app
      from i left join lateral (
        -- LIMIT keeps this a probe of candidates_position_email_key per row: flattened into a
        -- join, the planner hashes the whole table on its row estimate of the input (a seq scan
        -- that grows with every page written).
        select c.id, c.upstream_application_id from candidates c
         where c.position_id = i.p and lower(c.email) = lower(i.email) limit 1
      ) c on true
  ), ${recording ? sql`ok as (select exists (select 1 from lk) and not exists (select 1 from m where ${met}) as ok), ` : sql``}up as (
    insert into candidates as c (id, organization_id, position_id, upstream_application_id, name, email, phone, language, tags)
    select cid, ${org}::uuid, p, a, name, email, phone, lang, tags from m where (mail_id is null or mail_app = a)${recording ? sql` and ${ok}` : sql``}
    on conflict (position_id, upstream_application_id) do update
       set name = excluded.name, email = excluded.email, phone = excluded.phone, updated_at = now()
     where (c.name, c.email, c.phone) is distinct from (excluded.name, excluded.email, excluded.phone)
    returning c.id, c.position_id as p, c.upstream_application_id as a, (c.xmax = 0) as inserted${sql.raw(events.returning)}
  ), iv as (
    -- Candidates new in this statement: none has an interview yet (no ON CONFLICT to check).
    insert into interviews (id, organization_id, candidate_id, interview_link)
    select m.iid, ${org}::uuid, up.id, ${base} || '/' || m.link from up join m on m.p = up.p and m.a = up.a where up.inserted
  )${sql.raw(events.items)}${
    recording
      ? sql`, ${recording.to.record({
          created: sql`(select count(*) from up where inserted)`,
          updated: sql`(select count(*) from up where not inserted)`,
          skipped: recording.skipped,
          ok,
        })}
  select null::uuid as id, null::boolean as inserted, n, mail_id, mail_app, null::boolean as recorded from m where ${met}
  union all
  select null, null, null, null, null, ${ok}`
      : sql`
  select up.id, up.inserted, null::int as n, null::uuid as mail_id, null::text as mail_app from up
  union all
  select null, null, n, mail_id, mail_app from m where ${met}`
  }`;
};

export type PageWriteRow = {
  id: string | null;
  inserted: boolean | null;
  n: number | null;
  mail_id: string | null;
  mail_app: string | null;
  recorded?: boolean | null;
};

/** A key of a position's application or email. */
export const positionKey = (position: string, value: string) => `${position}\u0000${value}`;

/**
 * The statement's input rows: one application per (position, application), and one per (position,
 * email); the others are skipped as `duplicate_email_in_page`.
 */
export function pageInput(
  applications: PositionedApplication[],
  suppressionKey?: string,
): { input: InputRow[]; skipped: SkippedApplication[] } {
  const skipped: SkippedApplication[] = [];
  const byApplication = new Map(applications.map((a) => [positionKey(a.position_id, a.upstream_application_id), a]));
  const byEmail = new Map<string, PositionedApplication>();
  for (const app of byApplication.values()) {
    const k = positionKey(app.position_id, app.email.toLowerCase());
    if (byEmail.has(k)) skipped.push({ upstream_application_id: app.upstream_application_id, reason: "duplicate_email_in_page" });
    else byEmail.set(k, app);
  }
  const apps = [...byEmail.values()];
  // One draw of random bytes for the page's interview links (192 bits each; used for new candidates only).
  const random = randomBytes(24 * apps.length);
  const newIds = uuidv7s(2 * apps.length);
  const input: InputRow[] = apps.map((a, n) => ({
    n,
    cid: newIds[2 * n]!,
    iid: newIds[2 * n + 1]!,
    p: a.position_id,
    a: a.upstream_application_id,
    // Upstream text longer than its column (migrations/0201_recruiting.sql) is cut, not refused.
    name: cut(a.name, 200),
    email: a.email,
    phone: a.phone?.trim() ? cut(a.phone, 200) : null,
    lang: cut(a.language, 200),
    tags: [...new Set(a.tags ?? [])],
    link: random.subarray(24 * n, 24 * (n + 1)).toString("base64url"),
    h: suppressionKey ? emailHmac(suppressionKey, a.email) : null,
  }));
  return { input, skipped };
}
