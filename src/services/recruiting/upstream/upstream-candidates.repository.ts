import { randomBytes } from "node:crypto";
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Queryable } from "../../../shared/db/database.js";
import { uuidv7s } from "../../../shared/db/uuid7.js";
import type { PositionedApplication, SyncPageRecord, UpstreamApplication } from "../../../shared/ports/recruiting-sync.js";
import { cut } from "../../../shared/text.js";
import { candidates, type CandidateRow } from "../candidates/candidates.tables.js";
import type { EventsOut } from "../../../shared/ports/events-out.js";
import { NO_EVENTS_OUT } from "../../../shared/no-events-out.js";
import { candidateJsonText } from "../candidates/candidate-json.js";
import { type PageRecording, syncPageRecording } from "./sync-page-record.js";
import { upsertEvents } from "./upsert-events.js";
import { emailHmac, suppressedSql } from "../erasure/erasure.js";
import { rowsOf } from "./upstream-positions.repository.js";

/** An upserted row, with whether it was new and whether anything changed (true for new rows). */
export type UpsertedCandidate = CandidateRow & { inserted: boolean; changed: boolean };

export type SkippedApplication = {
  upstream_application_id: string;
  reason: "email_taken" | "duplicate_email_in_page";
};

/** What a page's upsert did: the candidates written (new or changed) by id, and the applications skipped. */
export type CandidatesWritten = { written: { id: string; inserted: boolean }[]; skipped: SkippedApplication[] };

/** The statement's input rows, one jsonb parameter (field names kept short: it is sent per page). */
type InputRow = {
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
const PAGE_WRITE = (
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

type PageWriteRow = {
  id: string | null;
  inserted: boolean | null;
  n: number | null;
  mail_id: string | null;
  mail_app: string | null;
  recorded?: boolean | null;
};

/** A key of a position's application or email. */
const key = (position: string, value: string) => `${position}\u0000${value}`;

/**
 * The statement's input rows: one application per (position, application), and one per (position,
 * email); the others are skipped as `duplicate_email_in_page`.
 */
function pageInput(applications: PositionedApplication[], suppressionKey?: string): { input: InputRow[]; skipped: SkippedApplication[] } {
  const skipped: SkippedApplication[] = [];
  const byApplication = new Map(applications.map((a) => [key(a.position_id, a.upstream_application_id), a]));
  const byEmail = new Map<string, PositionedApplication>();
  for (const app of byApplication.values()) {
    const k = key(app.position_id, app.email.toLowerCase());
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

/**
 * Writes a page of applications as upsertPositionedCandidates does, together with its sync run's
 * record (`record`, see syncPageRecording), in one statement: no transaction around it, so it must
 * be given the database, not a transaction. Answers whether the page was recorded (false: the run
 * was not running, and nothing was written), or null when an application met a candidate by email
 * that is not its own: nothing was written then, and the caller writes the page with
 * upsertPositionedCandidates in a transaction, which sorts these out.
 */
export async function writeRecordedPage(
  q: Queryable,
  orgId: string,
  applications: PositionedApplication[],
  interviewBaseUrl: string,
  record: SyncPageRecord,
  events: EventsOut<Queryable> = NO_EVENTS_OUT,
  suppressionKey?: string,
): Promise<{ recorded: boolean } | null> {
  const { input, skipped } = pageInput(applications, suppressionKey);
  const base = interviewBaseUrl.replace(/\/+$/, "");
  const recording = syncPageRecording(record, events);
  const rows = rowsOf<PageWriteRow>(
    await q.execute(PAGE_WRITE(orgId, base, JSON.stringify(input), { recording: { to: recording, skipped: skipped.length }, events })),
  );
  if (rows.some((r) => r.n !== null)) return null;
  return { recorded: rows.some((r) => r.recorded === true) };
}

/**
 * Upserts a page of applications, of any positions of the org, as candidates on (position,
 * upstream_application_id), set-based: one statement for the page (PAGE_WRITE), and only when an
 * application meets a candidate by email that is not yet its own, one update and one more upsert.
 * New ones are inserted with their interview record, existing ones get the upstream-owned fields
 * (name, email, phone) when these changed; language and tags are set on creation only. A candidate
 * created by hand with the same email in the same position is adopted (linked) rather than
 * duplicated; an application whose email already belongs to a candidate linked to another
 * application is skipped and reported rather than failing the page (two applications swapping
 * emails within one page still raise a unique violation). Must run inside the caller's
 * transaction when it may adopt (it is then several statements).
 */
export async function upsertPositionedCandidates(
  q: Queryable,
  orgId: string,
  applications: PositionedApplication[],
  interviewBaseUrl: string,
  events: EventsOut<Queryable> = NO_EVENTS_OUT,
  suppressionKey?: string,
): Promise<CandidatesWritten> {
  const { input, skipped } = pageInput(applications, suppressionKey);
  if (input.length === 0) return { written: [], skipped };
  const base = interviewBaseUrl.replace(/\/+$/, "");
  const rows = rowsOf<PageWriteRow>(await q.execute(PAGE_WRITE(orgId, base, JSON.stringify(input), { events })));
  const written = rows.filter((r) => r.id !== null).map((r) => ({ id: r.id!, inserted: r.inserted! }));
  const met = rows.filter((r) => r.n !== null);
  if (met.length === 0) return { written, skipped };

  // Applications whose email belongs to a candidate that is not (yet) theirs: a hand-made one is
  // adopted, unless the application is linked to another candidate already.
  const linked = new Set(
    (
      await q
        .select({ position: candidates.positionId, app: candidates.upstreamApplicationId })
        .from(candidates)
        .where(
          and(
            inArray(candidates.positionId, [...new Set(met.map((r) => input[r.n!]!.p))]),
            inArray(
              candidates.upstreamApplicationId,
              met.map((r) => input[r.n!]!.a),
            ),
          ),
        )
    ).map((r) => key(r.position, r.app!)),
  );
  const adopt: { row: InputRow; candidate: string }[] = [];
  for (const r of met) {
    const app = input[r.n!]!;
    if (r.mail_app !== null || linked.has(key(app.p, app.a))) skipped.push({ upstream_application_id: app.a, reason: "email_taken" });
    else adopt.push({ row: app, candidate: r.mail_id! });
  }
  if (adopt.length === 0) return { written, skipped };
  const adopted = await adoptCandidates(q, orgId, adopt, events);
  // Now theirs: the same statement takes the adopted candidates' upstream fields.
  const again = rowsOf<PageWriteRow>(await q.execute(PAGE_WRITE(orgId, base, JSON.stringify(adopt.map((a) => a.row)), { events })));
  const ids = new Set(written.map((w) => w.id));
  for (const { id } of [...adopted, ...again.filter((r): r is PageWriteRow & { id: string } => r.id !== null)]) {
    if (!ids.has(id)) written.push({ id, inserted: false });
    ids.add(id);
  }
  return { written, skipped };
}

/** Links hand-made candidates to the applications that carry their email (each a candidate.updated). */
async function adoptCandidates(
  q: Queryable,
  orgId: string,
  adopt: { row: InputRow; candidate: string }[],
  events: EventsOut<Queryable>,
): Promise<{ id: string }[]> {
  const { returning, items } = upsertEvents(events, { kind: "candidate", orgId, rows: "adopted", target: "c", json: candidateJsonText });
  return rowsOf<{ id: string }>(
    await q.execute(sql`
      with adopted as (
        update candidates c set upstream_application_id = x.a, updated_at = now()
          from unnest(${sql.param(adopt.map((a) => a.candidate))}::uuid[], ${sql.param(adopt.map((a) => a.row.a))}::text[]) as x(id, a)
         where c.id = x.id
        returning c.id, false as inserted${sql.raw(returning)})${sql.raw(items)}
      select id from adopted`),
  );
}

/**
 * Upserts a page of applications as candidates of one position (see upsertPositionedCandidates),
 * answering the candidate rows of every application upserted, flagged new and changed.
 */
export async function upsertUpstreamCandidates(
  q: Queryable,
  orgId: string,
  positionId: string,
  applications: UpstreamApplication[],
  interviewBaseUrl: string,
): Promise<{ candidates: UpsertedCandidate[]; skipped: SkippedApplication[] }> {
  const { written, skipped } = await upsertPositionedCandidates(
    q,
    orgId,
    applications.map((a) => ({ ...a, position_id: positionId })),
    interviewBaseUrl,
  );
  const left = new Set(skipped.map((s) => s.upstream_application_id));
  const upserted = [...new Set(applications.map((a) => a.upstream_application_id).filter((id) => !left.has(id)))];
  if (upserted.length === 0) return { candidates: [], skipped };
  const flags = new Map(written.map((w) => [w.id, w.inserted]));
  const rows = await q
    .select()
    .from(candidates)
    .where(and(eq(candidates.positionId, positionId), inArray(candidates.upstreamApplicationId, upserted)));
  return {
    candidates: rows.map((r) => ({ ...r, inserted: flags.get(r.id) === true, changed: flags.has(r.id) })),
    skipped,
  };
}
