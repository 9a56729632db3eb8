import { createHash } from "node:crypto";
import { and, eq, exists, gt, inArray, isNotNull, isNull, lt, notExists, or, type SQL } from "drizzle-orm";
import type { Queryable } from "../../../shared/db/database.js";
import { tokenSessions, tokenSsoSessions, type SessionEndReason, type SsoSessionRow } from "./token.tables.js";

/** The SSO cookie is kept as its hash: a database read does not hand out a usable cookie. */
export const hashCookie = (secret: string) => createHash("sha256").update(secret).digest("base64url");

export type LiveSsoInput = {
  realm: string;
  /** The cookie's secret, as the browser sent it. */
  secret: string;
  /** Idle unless used (or one of its token sessions refreshed) after this. */
  idleBefore: Date;
  /** Too old if started before this: the maximum lifespan. */
  startedBefore: Date;
};

/** Ends `where`'s live SSO sessions and every live token session they started; answers how many SSO sessions ended. */
async function endWhere(db: Queryable, where: SQL, reason: SessionEndReason, now: Date): Promise<number> {
  const ended = await db
    .update(tokenSsoSessions)
    .set({ endedAt: now, endedReason: reason })
    .where(and(where, isNull(tokenSsoSessions.endedAt)))
    .returning({ id: tokenSsoSessions.id });
  if (ended.length === 0) return 0;
  await db
    .update(tokenSessions)
    .set({ endedAt: now, endedReason: reason })
    .where(
      and(
        inArray(
          tokenSessions.ssoSessionId,
          ended.map((e) => e.id),
        ),
        isNull(tokenSessions.endedAt),
      ),
    );
  return ended.length;
}

/** Token sessions `sso` started that were refreshed after `since` and are not over. */
const refreshedSince = (db: Queryable, since: Date) =>
  db
    .select({ id: tokenSessions.id })
    .from(tokenSessions)
    .where(and(eq(tokenSessions.ssoSessionId, tokenSsoSessions.id), isNull(tokenSessions.endedAt), gt(tokenSessions.lastRefreshAt, since)));

/**
 * Browser SSO sessions (Keycloak's user sessions behind its identity cookie): started by a sign-in
 * on the login page, found by the cookie, ended with every token session they started.
 */
export function ssoSessionsRepository(db: Queryable) {
  return {
    async insert(row: Omit<SsoSessionRow, "cookieHash" | "endedAt" | "endedReason"> & { secret: string }): Promise<void> {
      const { secret, ...rest } = row;
      await db.insert(tokenSsoSessions).values({ ...rest, cookieHash: hashCookie(secret) });
    },

    /**
     * The live SSO session of a cookie: not ended, not past its maximum lifespan, and used, or
     * kept busy by a refresh of a token session it started, within the idle timeout (Keycloak's
     * token refreshes keep the user session alive the same way). Null otherwise.
     */
    async findLive(input: LiveSsoInput): Promise<SsoSessionRow | null> {
      const rows = await db
        .select()
        .from(tokenSsoSessions)
        .where(
          and(
            eq(tokenSsoSessions.cookieHash, hashCookie(input.secret)),
            eq(tokenSsoSessions.realm, input.realm),
            isNull(tokenSsoSessions.endedAt),
            gt(tokenSsoSessions.startedAt, input.startedBefore),
            or(gt(tokenSsoSessions.lastUsedAt, input.idleBefore), exists(refreshedSince(db, input.idleBefore))),
          ),
        );
      return rows[0] ?? null;
    },

    /** A silent sign-in used it: the idle timeout starts again. */
    async touch(id: string, now: Date): Promise<void> {
      await db.update(tokenSsoSessions).set({ lastUsedAt: now }).where(eq(tokenSsoSessions.id, id));
    },

    /** Ends one SSO session (sign-out) and the token sessions it started. */
    end: (id: string, reason: SessionEndReason, now: Date) => endWhere(db, eq(tokenSsoSessions.id, id), reason, now),

    /** Ends every SSO session of a user (disabled, password changed, logged out by an admin). */
    endAllForUser: (userId: string, reason: SessionEndReason, now: Date) => endWhere(db, eq(tokenSsoSessions.userId, userId), reason, now),

    /** Removes SSO sessions that can never be used again (ended, or past idle or maximum lifespan, before the given times). */
    async deleteDead(endedBefore: Date, idleBefore: Date, startedBefore: Date): Promise<number> {
      const rows = await db
        .delete(tokenSsoSessions)
        .where(
          or(
            and(isNotNull(tokenSsoSessions.endedAt), lt(tokenSsoSessions.endedAt, endedBefore)),
            // Idle, and no token session it started refreshed since either.
            and(lt(tokenSsoSessions.lastUsedAt, idleBefore), notExists(refreshedSince(db, idleBefore))),
            lt(tokenSsoSessions.startedAt, startedBefore),
          ),
        )
        .returning({ id: tokenSsoSessions.id });
      return rows.length;
    },
  };
}
export type SsoSessionsRepository = ReturnType<typeof ssoSessionsRepository>;
