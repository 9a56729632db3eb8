import { boolean, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";

/** migrations/0601_assessment_orders.sql: the orders placed in an ATS for an organisation's packages. */
export const assessmentOrders = pgTable("assessment_orders", {
  id: uuid("id").primaryKey().defaultRandom(),
  integrationId: text("integration_id").notNull(),
  orderId: text("order_id").notNull(),
  orgId: uuid("org_id").notNull(),
  packageId: text("package_id").notNull(),
  positionId: uuid("position_id"),
  candidateId: uuid("candidate_id"),
  inline: boolean("inline").notNull().default(false),
  status: text("status").$type<"accepted" | "rejected">().notNull(),
  resultStatus: text("result_status").$type<"OPEN" | "COMPLETED" | "CANCELLED">().notNull().default("OPEN"),
  message: text("message"),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});
export type AssessmentOrderRow = typeof assessmentOrders.$inferSelect;

/** migrations/0601_assessment_orders.sql: whether an integration takes orders, and when its packages went out. */
export const assessmentSettings = pgTable("assessment_settings", {
  integrationId: text("integration_id").primaryKey(),
  orgId: uuid("org_id").notNull(),
  takesOrders: boolean("takes_orders").notNull().default(false),
  publishedAt: timestamp("published_at", { withTimezone: true }),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});
export type AssessmentSettingsRow = typeof assessmentSettings.$inferSelect;
