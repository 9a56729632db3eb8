import { pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import type { ServiceAccountScope } from "../../../contracts/service-accounts/index.js";

/** Drizzle mirror of migrations/0114_service_accounts.sql (the SQL is the source of truth). */
const at = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

export const tokenServiceAccounts = pgTable("token_service_accounts", {
  id: uuid("id").primaryKey(),
  realm: text("realm").notNull(),
  orgId: uuid("org_id").notNull(),
  clientId: text("client_id").notNull().unique(),
  name: text("name").notNull(),
  scopes: text("scopes").array().$type<ServiceAccountScope[]>().notNull().default(sql`'{}'`),
  secretHash: text("secret_hash").notNull(),
  createdAt: at("created_at").notNull(),
  createdBy: text("created_by").notNull(),
  secretRotatedAt: at("secret_rotated_at"),
  lastUsedAt: at("last_used_at"),
  revokedAt: at("revoked_at"),
});
export type ServiceAccountRow = typeof tokenServiceAccounts.$inferSelect;
