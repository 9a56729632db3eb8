import { and, eq, gt, isNotNull, isNull, lt, or, sql } from "drizzle-orm";
import type { Queryable } from "../../../shared/db/database.js";
import { tokenSessions, tokenUsers, type ClaimsUser, type SessionEndReason, type SessionRow } from "./token.tables.js";

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
 * Sessions: one per password login, holding its refresh-token family. Only the newest refresh
 * token (`refresh_jti`) is usable; a refresh swaps it by compare-and-set, so it holds across
 * instances on Postgres without locks held between statements.
 */
export function sessionsRepository(db: Queryable) {
  const p = (name: keyof RotateInput) => sql.placeholder(name);
  // One statement, prepared once per connection: spends the presented refresh token and makes the
  // next one current if and only if it is still current, the session is live, in this realm, of
  // this user, neither idle nor too old, and its user enabled; returns the user for the claims.
  const rotateLive = db
    .update(tokenSessions)
    .set({
      previousJti: sql`${p("presentedJti")}::uuid`,
      refreshJti: sql`${p("nextJti")}::uuid`,
      lastRefreshAt: sql`${p("now")}::timestamptz`,
      refreshCount: sql`${tokenSessions.refreshCount} + 1`,
    })
    .from(tokenUsers)
    .where(
      and(
        eq(tokenSessions.id, sql`${p("sid")}::uuid`),
        eq(tokenSessions.refreshJti, sql`${p("presentedJti")}::uuid`),
        isNull(tokenSessions.endedAt),
        eq(tokenSessions.realm, sql`${p("realm")}`),
        eq(tokenSessions.userId, sql`${p("userId")}::uuid`),
        gt(tokenSessions.lastRefreshAt, sql`${p("idleBefore")}::timestamptz`),
        gt(tokenSessions.startedAt, sql`${p("startedBefore")}::timestamptz`),
        eq(tokenUsers.id, tokenSessions.userId),
        eq(tokenUsers.enabled, true),
      ),
    )
    // Only the claims' columns: not the password hash, which a refresh has no business reading.
    .returning({
      id: tokenUsers.id,
      username: tokenUsers.username,
      email: tokenUsers.email,
      emailVerified: tokenUsers.emailVerified,
      firstName: tokenUsers.firstName,
      lastName: tokenUsers.lastName,
      attributes: tokenUsers.attributes,
      sessionId: tokenSessions.id,
      sessionStartedAt: tokenSessions.startedAt,
      sessionScope: tokenSessions.scope,
    })
    .prepare("token_refresh_rotate");

  return {
    /**
     * A refresh's whole happy path in one round trip (see `rotateLive` above). Null when anything
     * is off: the caller then reads the session to say what (and ends it on reuse).
     */
    async rotateLive(input: RotateInput): Promise<Rotated | null> {
      const [row] = await rotateLive.execute({
        ...input,
        now: input.now.toISOString(),
        idleBefore: input.idleBefore.toISOString(),
        startedBefore: input.startedBefore.toISOString(),
      });
      if (!row) return null;
      const { sessionId, sessionStartedAt, sessionScope, ...user } = row;
      return { session: { id: sessionId, startedAt: sessionStartedAt, scope: sessionScope }, user };
    },

    async insert(row: Omit<SessionRow, "previousJti" | "refreshCount" | "endedAt" | "endedReason">, tx: Queryable = db) {
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
