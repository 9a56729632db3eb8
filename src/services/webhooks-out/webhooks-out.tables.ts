import { sql } from "drizzle-orm";
import { boolean, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";

/** Drizzle view of migrations/0501_webhooks_out.sql `webhook_endpoints` (and 0503); the SQL file is the source of truth. */
export const webhookEndpoints = pgTable("webhook_endpoints", {
  id: uuid("id").primaryKey().defaultRandom(),
  organizationId: uuid("organization_id").notNull(),
  url: text("url").notNull(),
  description: text("description").notNull().default(""),
  eventTypes: text("event_types").array().notNull().default(sql`'{}'`),
  disabled: boolean("disabled").notNull().default(false),
  disabledReason: text("disabled_reason"),
  secret: text("secret").notNull(),
  previousSecret: text("previous_secret"),
  previousSecretExpiresAt: timestamp("previous_secret_expires_at", { withTimezone: true }),
  failingSince: timestamp("failing_since", { withTimezone: true }),
  /** A temporary endpoint's expiry (migrations/0503); null: it stays. */
  expiresAt: timestamp("expires_at", { withTimezone: true }),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});
export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;
