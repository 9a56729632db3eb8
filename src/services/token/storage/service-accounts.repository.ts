import { and, asc, eq, isNull } from "drizzle-orm";
import type { Queryable } from "../../../shared/db/database.js";
import { tokenServiceAccounts, type ServiceAccountRow } from "./service-accounts.tables.js";

/** Every statement on service accounts: the management routes' and the client credentials grant's. */
export function serviceAccountsRepository(db: Queryable) {
  return {
    async insert(row: Omit<ServiceAccountRow, "secretRotatedAt" | "lastUsedAt" | "revokedAt">): Promise<ServiceAccountRow> {
      const rows = await db.insert(tokenServiceAccounts).values(row).returning();
      return rows[0]!;
    },

    /** The organisation's accounts, oldest first, revoked ones included. */
    list(orgId: string): Promise<ServiceAccountRow[]> {
      return db
        .select()
        .from(tokenServiceAccounts)
        .where(eq(tokenServiceAccounts.orgId, orgId))
        .orderBy(asc(tokenServiceAccounts.createdAt), asc(tokenServiceAccounts.id));
    },

    async find(orgId: string, id: string): Promise<ServiceAccountRow | null> {
      const rows = await db
        .select()
        .from(tokenServiceAccounts)
        .where(and(eq(tokenServiceAccounts.orgId, orgId), eq(tokenServiceAccounts.id, id)));
      return rows[0] ?? null;
    },

    /** The account a token request names, in the realm it asks (revoked ones too: the grant says why). */
    async findByClientId(realm: string, clientId: string): Promise<ServiceAccountRow | null> {
      const rows = await db
        .select()
        .from(tokenServiceAccounts)
        .where(and(eq(tokenServiceAccounts.realm, realm), eq(tokenServiceAccounts.clientId, clientId)));
      return rows[0] ?? null;
    },

    /** A new secret hash for a live account; null when it is not the org's or is revoked. */
    async rotateSecret(orgId: string, id: string, secretHash: string, at: Date): Promise<ServiceAccountRow | null> {
      const rows = await db
        .update(tokenServiceAccounts)
        .set({ secretHash, secretRotatedAt: at })
        .where(and(eq(tokenServiceAccounts.orgId, orgId), eq(tokenServiceAccounts.id, id), isNull(tokenServiceAccounts.revokedAt)))
        .returning();
      return rows[0] ?? null;
    },

    /** Revokes a live account; null when it is not the org's or was revoked already. */
    async revoke(orgId: string, id: string, at: Date): Promise<ServiceAccountRow | null> {
      const rows = await db
        .update(tokenServiceAccounts)
        .set({ revokedAt: at })
        .where(and(eq(tokenServiceAccounts.orgId, orgId), eq(tokenServiceAccounts.id, id), isNull(tokenServiceAccounts.revokedAt)))
        .returning();
      return rows[0] ?? null;
    },

    /** Records a token issued to the account (the list's "last used"). */
    async touch(id: string, at: Date): Promise<void> {
      await db.update(tokenServiceAccounts).set({ lastUsedAt: at }).where(eq(tokenServiceAccounts.id, id));
    },
  };
}
export type ServiceAccountsRepository = ReturnType<typeof serviceAccountsRepository>;
