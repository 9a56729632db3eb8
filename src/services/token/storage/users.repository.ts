import { and, asc, eq, ilike, or, sql, type SQL } from "drizzle-orm";
import type { Queryable } from "../../../shared/db/database.js";
import { tokenUsers, type UserRow } from "./token.tables.js";

export type NewUser = Omit<UserRow, "id"> & { id?: string };
export type UserSearch = {
  username?: string | undefined;
  email?: string | undefined;
  firstName?: string | undefined;
  lastName?: string | undefined;
  /** Matches username, email, first or last name (Keycloak's `search`). */
  search?: string | undefined;
  /** Exact (case-insensitive) instead of substring matches for the field filters. */
  exact?: boolean | undefined;
  first: number;
  max: number;
};

/** LIKE patterns treat % and _ as wildcards; a search for "a_b" must match only "a_b". */
const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Keycloak's `GET /users` filters: substring (or exact) and case-insensitive, paginated. */
async function searchUsers(tx: Queryable, realm: string, q: UserSearch): Promise<UserRow[]> {
  const match = (column: SQL | typeof tokenUsers.username, value: string) =>
    q.exact ? sql`lower(${column}) = ${value.toLowerCase()}` : ilike(column, `%${escapeLike(value)}%`);
  const filters: (SQL | undefined)[] = [eq(tokenUsers.realm, realm)];
  if (q.username !== undefined) filters.push(match(tokenUsers.username, q.username));
  if (q.email !== undefined) filters.push(match(sql`coalesce(${tokenUsers.email}, '')`, q.email));
  if (q.firstName !== undefined) filters.push(match(sql`coalesce(${tokenUsers.firstName}, '')`, q.firstName));
  if (q.lastName !== undefined) filters.push(match(sql`coalesce(${tokenUsers.lastName}, '')`, q.lastName));
  if (q.search !== undefined && q.search !== "*") {
    const pattern = `%${escapeLike(q.search.replace(/^\*|\*$/g, ""))}%`;
    filters.push(
      or(
        ilike(tokenUsers.username, pattern),
        ilike(sql`coalesce(${tokenUsers.email}, '')`, pattern),
        ilike(sql`coalesce(${tokenUsers.firstName}, '')`, pattern),
        ilike(sql`coalesce(${tokenUsers.lastName}, '')`, pattern),
      ),
    );
  }
  return tx
    .select()
    .from(tokenUsers)
    .where(and(...filters))
    .orderBy(asc(tokenUsers.username))
    .offset(q.first)
    .limit(q.max);
}

export function usersRepository(db: Queryable) {
  return {
    /** Null when the realm already has that username or email (unique indexes, race-safe). */
    async insert(user: NewUser, tx: Queryable = db): Promise<UserRow | null> {
      const rows = await tx.insert(tokenUsers).values(user).onConflictDoNothing().returning();
      return rows[0] ?? null;
    },

    async findByEmail(realm: string, email: string, tx: Queryable = db): Promise<UserRow | null> {
      const rows = await tx
        .select()
        .from(tokenUsers)
        .where(and(eq(tokenUsers.realm, realm), sql`lower(${tokenUsers.email}) = ${email.toLowerCase()}`));
      return rows[0] ?? null;
    },

    async findById(realm: string, id: string, tx: Queryable = db): Promise<UserRow | null> {
      const rows = await tx
        .select()
        .from(tokenUsers)
        .where(and(eq(tokenUsers.realm, realm), eq(tokenUsers.id, id)));
      return rows[0] ?? null;
    },

    async findByUsername(realm: string, username: string, tx: Queryable = db): Promise<UserRow | null> {
      const rows = await tx
        .select()
        .from(tokenUsers)
        .where(and(eq(tokenUsers.realm, realm), eq(tokenUsers.username, username.toLowerCase())));
      return rows[0] ?? null;
    },

    /** Keycloak's `GET /users` filters: substring (or exact) and case-insensitive, paginated. */
    search: (realm: string, q: UserSearch, tx: Queryable = db): Promise<UserRow[]> => searchUsers(tx, realm, q),

    async update(
      realm: string,
      id: string,
      patch: Partial<
        Pick<
          UserRow,
          "email" | "emailVerified" | "firstName" | "lastName" | "enabled" | "attributes" | "passwordHash" | "passwordTemporary"
        >
      >,
      tx: Queryable = db,
    ): Promise<boolean> {
      if (Object.keys(patch).length === 0) return (await this.findById(realm, id, tx)) !== null;
      const rows = await tx
        .update(tokenUsers)
        .set(patch)
        .where(and(eq(tokenUsers.realm, realm), eq(tokenUsers.id, id)))
        .returning({ id: tokenUsers.id });
      return rows.length > 0;
    },

    /** Sessions and brute-force counters go with the user (foreign keys cascade). */
    async delete(realm: string, id: string, tx: Queryable = db): Promise<boolean> {
      const rows = await tx
        .delete(tokenUsers)
        .where(and(eq(tokenUsers.realm, realm), eq(tokenUsers.id, id)))
        .returning({ id: tokenUsers.id });
      return rows.length > 0;
    },
  };
}
export type UsersRepository = ReturnType<typeof usersRepository>;
