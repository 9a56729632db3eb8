import { and, eq, isNotNull, isNull, lt, or } from "drizzle-orm";
import type { Database, Db, Queryable } from "../../../shared/db/database.js";
import { commitsInFlight, createGroupCommit, settle, type Settled } from "../../../shared/db/group-commit.js";
import { namedStatement } from "../../../shared/db/named-statement.js";
import { refusedByServer } from "../../../shared/db/pg-error.js";
import { tokenSessions, type ClaimsUser, type SessionEndReason, type SessionRow } from "./token.tables.js";

/** What a refresh needs back from its compare-and-set: the session's fields for the new tokens and its user, for their claims. */
export type Rotated = { session: { id: string; startedAt: Date; scope: string }; user: ClaimsUser };

export type RotateInput = {
  sid: string;
  realm: string;
  userId: string;
  /** The refresh token presented: it must still be the session's current one. */
  presentedJti: string;
  nextJti: string;
  now: Date;
  /** The session must have been refreshed (or started) after this: the idle timeout. */
  idleBefore: Date;
  /** The session must have started after this: its maximum lifespan. */
  startedBefore: Date;
};

/**
 * One statement that rotates several sessions' refresh tokens (the refreshes that arrive together;
 * a single one is a batch of one), prepared once per connection: each presented refresh token is
 * spent and the next one made current if and only if it is still current, the session is live, in
 * this realm, of this user, neither idle nor too old, and its user enabled; each rotated session
 * answers its user, for the claims (not the password hash, which a refresh has no business
 * reading). Batched, Postgres pays one statement and one commit, with its WAL flush, for all of
 * them: under the refresh bench those were about half of Postgres's 160 µs per refresh.
 *
 * Two inputs for the same session (racing refreshes of one token) update its row once, with one of
 * them: the answer is keyed by the jti made current, so only that input rotated and the other gets
 * null, as it would have losing the race one statement later. A concurrent batch holding the same
 * session waits for the row and re-checks it, which no longer matches.
 */
const rotateStatement = namedStatement<{
  next_jti: string;
  id: string;
  username: string;
  email: string | null;
  email_verified: boolean;
  first_name: string | null;
  last_name: string | null;
  attributes: ClaimsUser["attributes"];
  session_id: string;
  session_started_at: Date;
  session_scope: string;
}>(
  "token_refresh_rotate_many",
  `update token_sessions s
      set previous_jti = i.presented_jti, refresh_jti = i.next_jti, last_refresh_at = i.now,
          refresh_count = s.refresh_count + 1
     from jsonb_to_recordset($1::jsonb) as i(
            sid uuid, realm text, user_id uuid, presented_jti uuid, next_jti uuid,
            now timestamptz, idle_before timestamptz, started_before timestamptz),
          token_users u
    where s.id = i.sid and s.refresh_jti = i.presented_jti and s.ended_at is null and s.realm = i.realm
      and s.user_id = i.user_id and s.last_refresh_at > i.idle_before and s.started_at > i.started_before
      and u.id = s.user_id and u.enabled
   returning s.refresh_jti::text as next_jti, u.id, u.username, u.email, u.email_verified, u.first_name,
             u.last_name, u.attributes, s.id as session_id, s.started_at as session_started_at,
             s.scope as session_scope`,
);

/** Rotates what it can of `inputs`; answers each input's outcome, in order (null: not rotated). */
async function rotateMany(db: Db, inputs: RotateInput[]): Promise<(Rotated | null)[]> {
  const rows = await rotateStatement(db, [
    JSON.stringify(
      inputs.map((i) => ({
        sid: i.sid,
        realm: i.realm,
        user_id: i.userId,
        presented_jti: i.presentedJti,
        next_jti: i.nextJti,
        now: i.now.toISOString(),
        idle_before: i.idleBefore.toISOString(),
        started_before: i.startedBefore.toISOString(),
      })),
    ),
  ]);
  const byNext = new Map(rows.map((r) => [r.next_jti.toLowerCase(), r]));
  return inputs.map((input) => {
    const row = byNext.get(input.nextJti.toLowerCase());
    if (!row) return null;
    const { next_jti: _, session_id, session_started_at, session_scope, ...u } = row;
    return {
      session: { id: session_id, startedAt: session_started_at, scope: session_scope },
      user: {
        id: u.id,
        username: u.username,
        email: u.email,
        emailVerified: u.email_verified,
        firstName: u.first_name,
        lastName: u.last_name,
        attributes: u.attributes,
      },
    };
  });
}

/**
 * Sessions: one per password login, holding its refresh-token family. Only the newest refresh
 * token (`refresh_jti`) is usable; a refresh swaps it by compare-and-set, so it holds across
 * instances on Postgres without locks held between statements.
 */
export function sessionsRepository(db: Db, kind: Database["kind"]) {
  const rotation = createGroupCommit<RotateInput, Rotated | null>({
    maxBatch: 100,
    maxInFlight: commitsInFlight(kind),
    commit: async (inputs) => {
      if (inputs.length > 1) {
        try {
          return (await rotateMany(db, inputs)).map((value) => ({ ok: true, value }));
        } catch (err) {
          // Refused by the server, the batch wrote nothing (a deadlock between two batches holding
          // the same sessions in another order is one way): each rotation goes again alone.
          if (!refusedByServer(err)) throw err;
        }
      }
      const out: Settled<Rotated | null>[] = [];
      for (const input of inputs) out.push(await settle(async () => (await rotateMany(db, [input]))[0] ?? null));
      return out;
    },
  });

  return {
    /**
     * A refresh's whole happy path in one round trip (see `rotateStatement`), committed together
     * with the other refreshes arriving at the same time. Null when anything is off: the caller then
     * reads the session to say what (and ends it on reuse).
     */
    rotateLive: (input: RotateInput): Promise<Rotated | null> => rotation.submit(input),

    async insert(
      row: Omit<SessionRow, "previousJti" | "refreshCount" | "endedAt" | "endedReason" | "ssoSessionId"> & { ssoSessionId?: string | null },
      tx: Queryable = db,
    ) {
      await tx.insert(tokenSessions).values(row);
    },

    async findById(id: string, tx: Queryable = db): Promise<SessionRow | null> {
      const rows = await tx.select().from(tokenSessions).where(eq(tokenSessions.id, id));
      return rows[0] ?? null;
    },

    /** Ends a live session; false when it was already over (or never existed). */
    async end(id: string, reason: SessionEndReason, now: Date, tx: Queryable = db): Promise<boolean> {
      const rows = await tx
        .update(tokenSessions)
        .set({ endedAt: now, endedReason: reason })
        .where(and(eq(tokenSessions.id, id), isNull(tokenSessions.endedAt)))
        .returning({ id: tokenSessions.id });
      return rows.length > 0;
    },

    async endAllForUser(userId: string, reason: SessionEndReason, now: Date, tx: Queryable = db): Promise<number> {
      const rows = await tx
        .update(tokenSessions)
        .set({ endedAt: now, endedReason: reason })
        .where(and(eq(tokenSessions.userId, userId), isNull(tokenSessions.endedAt)))
        .returning({ id: tokenSessions.id });
      return rows.length;
    },

    /** Removes sessions that can never be used again: ended, idle past the limit, or past max age. */
    async deleteDead(endedBefore: Date, idleBefore: Date, startedBefore: Date, tx: Queryable = db): Promise<number> {
      const rows = await tx
        .delete(tokenSessions)
        .where(
          or(
            and(isNotNull(tokenSessions.endedAt), lt(tokenSessions.endedAt, endedBefore)),
            lt(tokenSessions.lastRefreshAt, idleBefore),
            lt(tokenSessions.startedAt, startedBefore),
          ),
        )
        .returning({ id: tokenSessions.id });
      return rows.length;
    },
  };
}
export type SessionsRepository = ReturnType<typeof sessionsRepository>;
