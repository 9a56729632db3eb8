import type { Database, Queryable } from "../../../shared/db/database.js";
import { commitsInFlight, createGroupCommit, settle, type Settled } from "../../../shared/db/group-commit.js";
import { refusedByServer } from "../../../shared/db/pg-error.js";
import { uuidv7s } from "../../../shared/db/uuid7.js";
import { notFound } from "../../../shared/errors.js";
import type { EventsOut } from "../../../shared/ports/events-out.js";
import { NO_EVENTS_OUT } from "../../../shared/no-events-out.js";
import { withConflicts } from "../http/db-errors.js";
import {
  insertCandidateWithInterview,
  insertCandidatesWithInterviews,
  type CandidateToCreate,
  type NewCandidate,
} from "./candidates.repository.js";
import type { CandidateRow } from "./candidates.tables.js";

/** Unique violations → the 409s a client can act on. */
export const candidateConflicts = (what: string) => ({
  candidates_position_email_key: `${what}: another candidate of this position already has this email`,
  candidates_upstream_application_key: `${what}: another candidate of this position is linked to this upstream application`,
});

export type CandidateIntake = {
  /** Creates the candidate and its interview record; settles once they are committed. */
  create(orgId: string, positionId: string, values: NewCandidate, interviewLink: string): Promise<CandidateRow>;
};

/**
 * Group commit for `POST` candidate (shared/db/group-commit.ts). Under load, most of a creation's
 * cost was fixed per statement, not per row: CPU per answer across all processes was 669 µs, of
 * which Postgres 312 µs for the two one-row inserts, the list-version trigger and the commit with
 * its WAL flush, and the API 267 µs, much of it the driver's round trip. The requests that arrive
 * together now share one statement and one commit.
 *
 * Each request still gets exactly its own answer: a row the batch did not insert (its position is
 * not its org's, or it conflicts on a unique key, with a stored candidate or with another of the
 * batch) is replayed alone through the one-row statement, which answers its 404 or 409; a batch
 * statement the server refuses (one row's data, a deadlock) wrote nothing and is replayed row by
 * row, so one bad row fails only its own request. A lost connection fails the batch's requests, as
 * it would have failed each: whether its statement committed is unknown, so it is not replayed.
 */
export function createCandidateIntake(database: Database, events: EventsOut<Queryable> = NO_EVENTS_OUT): CandidateIntake {
  const db = database.db;

  async function createOne(c: CandidateToCreate): Promise<CandidateRow> {
    const row = await withConflicts(candidateConflicts("Candidate not created"), () =>
      insertCandidateWithInterview(db, c.orgId, c.positionId, c.values, c.interviewLink, events),
    );
    if (!row) throw notFound("Position not found");
    return row;
  }

  async function commit(items: CandidateToCreate[]): Promise<Settled<CandidateRow>[]> {
    const out = await write(items);
    events.committed(new Set(items.map((c) => c.orgId)));
    return out;
  }

  async function write(items: CandidateToCreate[]): Promise<Settled<CandidateRow>[]> {
    if (items.length === 1) return [await settle(() => createOne(items[0]!))];
    let created = new Map<string, CandidateRow>();
    try {
      created = await insertCandidatesWithInterviews(db, items, events);
    } catch (err) {
      if (!refusedByServer(err)) throw err;
    }
    const out: Settled<CandidateRow>[] = [];
    for (const c of items) {
      const row = created.get(c.id);
      out.push(row ? { ok: true, value: row } : await settle(() => createOne(c)));
    }
    return out;
  }

  const group = createGroupCommit<CandidateToCreate, CandidateRow>({
    maxBatch: 100,
    // Three on Postgres: under `bench recruiting` (10 connections) the API used about 55% of a
    // core and each Postgres backend 28%, the rest was each batch waiting for its commit. A third
    // batch in flight took creations from 4,400–4,470/s to 4,800–4,860/s; the token service's and
    // the webhook receivers' group commits, bound by their own CPU, gained nothing from it.
    maxInFlight: commitsInFlight(database.kind, 3),
    commit,
  });

  return {
    create: (orgId, positionId, values, interviewLink) => group.submit({ id: uuidv7s(1)[0]!, orgId, positionId, values, interviewLink }),
  };
}
