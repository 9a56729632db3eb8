import { and, asc, isNull, lt, ne } from "drizzle-orm";
import type { Queryable } from "../../../shared/db/database.js";
import { tokenRefreshTokenKeys, type RefreshTokenKeyRow } from "./token.tables.js";

/** The HMAC keys of refresh tokens, persisted (like the signing keys) for restarts and other instances. */
export function refreshTokenKeysRepository(db: Queryable) {
  return {
    /** Every stored key, oldest first (the newest unretired one signs). */
    async all(tx: Queryable = db): Promise<RefreshTokenKeyRow[]> {
      return tx.select().from(tokenRefreshTokenKeys).orderBy(asc(tokenRefreshTokenKeys.createdAt), asc(tokenRefreshTokenKeys.kid));
    },

    async insert(row: Omit<RefreshTokenKeyRow, "retiredAt" | "verifyUntil">, tx: Queryable = db): Promise<void> {
      await tx
        .insert(tokenRefreshTokenKeys)
        .values({ ...row, retiredAt: null, verifyUntil: null })
        .onConflictDoNothing();
    },

    /** Retires every key still active except `keep`; they keep verifying until `verifyUntil`. */
    async retireAllExcept(keep: string, at: Date, verifyUntil: Date, tx: Queryable = db): Promise<string[]> {
      const rows = await tx
        .update(tokenRefreshTokenKeys)
        .set({ retiredAt: at, verifyUntil })
        .where(and(isNull(tokenRefreshTokenKeys.retiredAt), ne(tokenRefreshTokenKeys.kid, keep)))
        .returning({ kid: tokenRefreshTokenKeys.kid });
      return rows.map((r) => r.kid);
    },

    /** Drops retired keys whose tokens have all expired. */
    async deleteExpired(now: Date, tx: Queryable = db): Promise<number> {
      const rows = await tx
        .delete(tokenRefreshTokenKeys)
        .where(lt(tokenRefreshTokenKeys.verifyUntil, now))
        .returning({ kid: tokenRefreshTokenKeys.kid });
      return rows.length;
    },
  };
}
export type RefreshTokenKeysRepository = ReturnType<typeof refreshTokenKeysRepository>;
