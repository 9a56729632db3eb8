import { sql } from "drizzle-orm";
import { boolean, index, integer, pgTable, text, timestamp, uniqueIndex, uuid, varchar } from "drizzle-orm/pg-core";
import { positions } from "../positions/positions.tables.js";

/** Drizzle view of migrations/0201_recruiting.sql `candidates`; the SQL file is the source of truth. */
export const candidates = pgTable(
  "candidates",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id").notNull(),
    positionId: uuid("position_id")
      .notNull()
      .references(() => positions.id, { onDelete: "cascade" }),
    name: varchar("name", { length: 200 }).notNull(),
    email: varchar("email", { length: 200 }).notNull(),
    phone: varchar("phone", { length: 200 }), // null only for synced candidates (migration 0202)
    language: varchar("language", { length: 200 }).notNull(),
    state: text("state").notNull().default("new"),
    score: integer("score"),
    feedback: text("feedback"),
    hired: boolean("hired").notNull().default(false),
    invitedAt: timestamp("invited_at", { withTimezone: true }),
    completedAt: timestamp("completed_at", { withTimezone: true }),
    upstreamApplicationId: varchar("upstream_application_id", { length: 100 }),
    shortListed: boolean("short_listed").notNull().default(false),
    tags: text("tags").array().notNull().default(sql`'{}'`),
    /** migrations/0601: the upstream assessment order the candidate came from (read-only), and its results page's token. */
    upstreamAssessmentOrderId: text("upstream_assessment_order_id"),
    resultsToken: text("results_token"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("candidates_position_email_key").on(t.positionId, sql`lower(${t.email})`),
    uniqueIndex("candidates_upstream_application_key").on(t.positionId, t.upstreamApplicationId),
    index("candidates_position_created_idx").on(t.positionId, t.createdAt, t.id),
  ],
);
export type CandidateRow = typeof candidates.$inferSelect;
