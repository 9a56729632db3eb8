import { and, eq, inArray, sql } from "drizzle-orm";
import type { Queryable } from "../../../shared/db/database.js";
import type { EventsOut } from "../../../shared/ports/events-out.js";
import type { PositionedApplication, SyncPageRecord, UpstreamApplication } from "../../../shared/ports/recruiting-sync.js";
import { NO_EVENTS_OUT } from "../../../shared/no-events-out.js";
import { candidateJsonText } from "../candidates/candidate-json.js";
import { candidates, type CandidateRow } from "../candidates/candidates.tables.js";
import { type InputRow, PAGE_WRITE, type PageWriteRow, pageInput, positionKey, type SkippedApplication } from "./candidate-page-write.js";
import { syncPageRecording } from "./sync-page-record.js";
import { upsertEvents } from "./upsert-events.js";
import { rowsOf } from "./upstream-positions.repository.js";

export type { SkippedApplication } from "./candidate-page-write.js";

/** An upserted row, with whether it was new and whether anything changed (true for new rows). */
export type UpsertedCandidate = CandidateRow & { inserted: boolean; changed: boolean };

/** What a page's upsert did: the candidates written (new or changed) by id, and the applications skipped. */
export type CandidatesWritten = { written: { id: string; inserted: boolean }[]; skipped: SkippedApplication[] };

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
    ).map((r) => positionKey(r.position, r.app!)),
  );
  const adopt: { row: InputRow; candidate: string }[] = [];
  for (const r of met) {
    const app = input[r.n!]!;
    if (r.mail_app !== null || linked.has(positionKey(app.p, app.a)))
      skipped.push({ upstream_application_id: app.a, reason: "email_taken" });
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
