import { pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";

/** migrations/0301_integrations.sql, 0302_integration_display_name.sql */
export const integrations = pgTable("integrations", {
  id: text("id").primaryKey(),
  orgId: uuid("org_id").notNull(),
  tool: text("tool").notNull(),
  category: text("category"),
  status: text("status"),
  setupStatus: text("setup_status"),
  qaStatus: text("qa_status"),
  stateChangedAt: timestamp("state_changed_at", { withTimezone: true }),
  /** migrations/0302_integration_display_name.sql */
  organizationName: text("organization_name"),
  displayName: text("display_name"),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  deletedAt: timestamp("deleted_at", { withTimezone: true }),
});
export type IntegrationRow = typeof integrations.$inferSelect;
