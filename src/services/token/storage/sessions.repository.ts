import { and, eq, isNotNull, isNull, lt, or, sql } from "drizzle-orm";
import type { Queryable } from "../../../shared/db/database.js";
import { tokenSessions, type SessionEndReason, type SessionRow } from "./token.tables.js";

/**
 * Sessions: one per password login, holding its refresh-token family. Only the newest refresh
 * token (`refresh_jti`) is usable; a refresh swaps it by compare-and-set, so it holds across
 * instances on Postgres without locks held between statements.
 */
export function sessionsRepository(db: Queryable) {
  return {
    async insert(row: Omit<SessionRow, "previousJti" | "refreshCount" | "endedAt" | "endedReason">, tx: Queryable = db) {
      await tx.insert(tokenSessions).values(row);
    },

    async findById(id: string, tx: Queryable = db): Promise<SessionRow | null> {
      const rows = await tx.select().from(tokenSessions).where(eq(tokenSessions.id, id));
      return rows[0] ?? null;
    },

    /**
     * Spends `presentedJti` and makes `nextJti` the session's refresh token, if and only if
     * `presentedJti` is still the current one and the session is live. Null when another refresh
     * got there first, or the token was already spent: the caller treats that as reuse.
     */
    async rotate(id: string, presentedJti: string, nextJti: string, now: Date, tx: Queryable = db): Promise<SessionRow | null> {
      const rows = await tx
        .update(tokenSessions)
        .set({ previousJti: presentedJti, refreshJti: nextJti, lastRefreshAt: now, refreshCount: sql`${tokenSessions.refreshCount} + 1` })
        .where(and(eq(tokenSessions.id, id), eq(tokenSessions.refreshJti, presentedJti), isNull(tokenSessions.endedAt)))
        .returning();
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
