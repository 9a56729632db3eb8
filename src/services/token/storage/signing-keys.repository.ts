import { asc, eq, isNull, lt } from "drizzle-orm";
import type { Queryable } from "../../../shared/db/database.js";
import { tokenSigningKeys, type SigningKeyRow } from "./token.tables.js";

/** Signing keys, persisted so they survive restarts and are shared by every instance. */
export function signingKeysRepository(db: Queryable) {
  return {
    /** Every stored key, oldest first (the newest unretired one signs). */
    async all(tx: Queryable = db): Promise<SigningKeyRow[]> {
      return tx.select().from(tokenSigningKeys).orderBy(asc(tokenSigningKeys.createdAt), asc(tokenSigningKeys.kid));
    },

    async insert(row: Omit<SigningKeyRow, "retiredAt" | "publishUntil">, tx: Queryable = db): Promise<void> {
      await tx
        .insert(tokenSigningKeys)
        .values({ ...row, retiredAt: null, publishUntil: null })
        .onConflictDoNothing();
    },

    /** Retires every key still active except `keep`, publishing them until `publishUntil`. */
    async retireAllExcept(keep: string, at: Date, publishUntil: Date, tx: Queryable = db): Promise<string[]> {
      const active = await tx.select({ kid: tokenSigningKeys.kid }).from(tokenSigningKeys).where(isNull(tokenSigningKeys.retiredAt));
      const retired: string[] = [];
      for (const { kid } of active) {
        if (kid === keep) continue;
        await tx.update(tokenSigningKeys).set({ retiredAt: at, publishUntil }).where(eq(tokenSigningKeys.kid, kid));
        retired.push(kid);
      }
      return retired;
    },

    /** Drops retired keys whose tokens have all expired. */
    async deleteUnpublished(now: Date, tx: Queryable = db): Promise<number> {
      const rows = await tx.delete(tokenSigningKeys).where(lt(tokenSigningKeys.publishUntil, now)).returning({ kid: tokenSigningKeys.kid });
      return rows.length;
    },
  };
}
export type SigningKeysRepository = ReturnType<typeof signingKeysRepository>;
