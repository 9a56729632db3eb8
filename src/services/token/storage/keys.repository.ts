import { and, asc, isNull, lt, ne } from "drizzle-orm";
import type { PgColumn, PgTable } from "drizzle-orm/pg-core";
import type { Queryable } from "../../../shared/db/database.js";
import { type RefreshTokenKeyRow, type SigningKeyRow, tokenRefreshTokenKeys, tokenSigningKeys } from "./token.tables.js";

/**
 * The key kinds the token service stores, each with its table and the column until which a retired
 * key still counts. Kept in two tables because nothing of a refresh token key is public (see
 * refresh-token-keys.ts), but stored, rotated and dropped the same way.
 */
const KINDS = {
  /** The realm's signing keys (RS256 or ES256): a retired one stays in the JWKS until `publishUntil`. */
  signing: { table: tokenSigningKeys, until: tokenSigningKeys.publishUntil, untilField: "publishUntil" },
  /** The HMAC keys of refresh tokens (HS512), never published: a retired one verifies until `verifyUntil`. */
  refresh: { table: tokenRefreshTokenKeys, until: tokenRefreshTokenKeys.verifyUntil, untilField: "verifyUntil" },
} as const;

type RowOf = { signing: SigningKeyRow; refresh: RefreshTokenKeyRow };
export type KeyKind = keyof typeof KINDS;
/** A new key of `K`: every column but the retirement ones, which start empty. */
export type NewKey<K extends KeyKind> = Omit<RowOf[K], "retiredAt" | (typeof KINDS)[K]["untilField"]>;

/** The columns every key table has, which is all this repository touches. */
type KeyColumns = { table: PgTable; kid: PgColumn; createdAt: PgColumn; retiredAt: PgColumn; until: PgColumn; untilField: string };

const columnsOf = (kind: KeyKind): KeyColumns => {
  const { table, until, untilField } = KINDS[kind];
  return { table, kid: table.kid, createdAt: table.createdAt, retiredAt: table.retiredAt, until, untilField };
};

/** The stored keys of one kind, persisted so they survive restarts and are shared by every instance. */
export function keysRepository<K extends KeyKind>(db: Queryable, kind: K) {
  const { table, kid, createdAt, retiredAt, until, untilField } = columnsOf(kind);
  return {
    /** Every stored key, oldest first (the newest unretired one signs). */
    async all(tx: Queryable = db): Promise<RowOf[K][]> {
      return (await tx.select().from(table).orderBy(asc(createdAt), asc(kid))) as RowOf[K][];
    },

    async insert(row: NewKey<K>, tx: Queryable = db): Promise<void> {
      await tx
        .insert(table)
        .values({ ...row, retiredAt: null, [untilField]: null })
        .onConflictDoNothing();
    },

    /** Retires every key still active except `keep`, in one statement; they keep counting until `until`. */
    async retireAllExcept(keep: string, at: Date, untilAt: Date, tx: Queryable = db): Promise<string[]> {
      const rows = await tx
        .update(table)
        .set({ retiredAt: at, [untilField]: untilAt })
        .where(and(isNull(retiredAt), ne(kid, keep)))
        .returning({ kid });
      return rows.map((r) => r.kid as string);
    },

    /** Drops retired keys whose tokens have all expired. */
    async deleteExpired(now: Date, tx: Queryable = db): Promise<number> {
      const rows = await tx.delete(table).where(lt(until, now)).returning({ kid });
      return rows.length;
    },
  };
}
export type KeysRepository<K extends KeyKind> = ReturnType<typeof keysRepository<K>>;
