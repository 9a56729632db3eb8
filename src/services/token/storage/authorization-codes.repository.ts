import { createHash } from "node:crypto";
import { and, eq, isNull, lt } from "drizzle-orm";
import type { Queryable } from "../../../shared/db/database.js";
import { tokenAuthorizationCodes, type AuthorizationCodeRow } from "./token.tables.js";

/** Codes are kept as their hash: a database read does not hand out usable codes. */
export const hashCode = (code: string) => createHash("sha256").update(code).digest("base64url");

export type NewAuthorizationCode = Omit<AuthorizationCodeRow, "codeHash" | "usedAt" | "sessionId">;

/** Authorization codes: issued at sign-in, spent once at the token endpoint. */
export function authorizationCodesRepository(db: Queryable) {
  return {
    async insert(code: string, row: NewAuthorizationCode): Promise<void> {
      await db.insert(tokenAuthorizationCodes).values({ ...row, codeHash: hashCode(code) });
    },

    /**
     * Spends the code: the row when this call was the first to present it, else `{ spent }` with
     * the row it was (already used, or null when unknown). One statement, so a race has one winner.
     */
    async spend(code: string, now: Date): Promise<{ row: AuthorizationCodeRow } | { spent: AuthorizationCodeRow | null }> {
      const codeHash = hashCode(code);
      const [row] = await db
        .update(tokenAuthorizationCodes)
        .set({ usedAt: now })
        .where(and(eq(tokenAuthorizationCodes.codeHash, codeHash), isNull(tokenAuthorizationCodes.usedAt)))
        .returning();
      if (row) return { row };
      const [spent] = await db.select().from(tokenAuthorizationCodes).where(eq(tokenAuthorizationCodes.codeHash, codeHash));
      return { spent: spent ?? null };
    },

    /** Remembers the session an exchange started, so a replay of the code can end it. */
    async attachSession(code: string, sessionId: string): Promise<void> {
      await db
        .update(tokenAuthorizationCodes)
        .set({ sessionId })
        .where(eq(tokenAuthorizationCodes.codeHash, hashCode(code)));
    },

    /** Removes codes that expired before `before` (used or not): they can never be exchanged. */
    async deleteExpired(before: Date): Promise<number> {
      const rows = await db
        .delete(tokenAuthorizationCodes)
        .where(lt(tokenAuthorizationCodes.expiresAt, before))
        .returning({ codeHash: tokenAuthorizationCodes.codeHash });
      return rows.length;
    },
  };
}
export type AuthorizationCodesRepository = ReturnType<typeof authorizationCodesRepository>;
