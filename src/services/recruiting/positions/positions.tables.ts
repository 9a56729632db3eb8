import { sql } from "drizzle-orm";
import { boolean, index, integer, pgTable, text, timestamp, uniqueIndex, uuid, varchar } from "drizzle-orm/pg-core";

/** Drizzle view of migrations/0201_recruiting.sql `positions`; the SQL file is the source of truth. */
export const positions = pgTable(
  "positions",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id").notNull(),
    name: varchar("name", { length: 100 }).notNull(),
    state: text("state").notNull().default("draft"),
    department: varchar("department", { length: 100 }),
    location: varchar("location", { length: 100 }),
    minScore: integer("min_score"),
    roleDescription: varchar("role_description", { length: 500 }),
    positionCalenderLink: varchar("position_calender_link", { length: 500 }),
    acceptedLanguages: text("accepted_languages").array().notNull().default(sql`'{}'`),
    agentId: varchar("agent_id", { length: 255 }),
    candidateStage: varchar("candidate_stage", { length: 200 }),
    passedStage: varchar("passed_stage", { length: 200 }),
    rejectedStage: varchar("rejected_stage", { length: 200 }),
    needsReviewedStage: varchar("needs_reviewed_stage", { length: 200 }),
    autoUpdateStages: boolean("auto_update_stages").notNull().default(false),
    upstreamJobIdId: varchar("upstream_job_id_id", { length: 100 }),
    upstreamIntegrationId: varchar("upstream_integration_id", { length: 100 }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("positions_org_created_idx").on(t.organizationId, t.createdAt, t.id),
    uniqueIndex("positions_upstream_job_key").on(t.organizationId, t.upstreamIntegrationId, t.upstreamJobIdId),
  ],
);
export type PositionRow = typeof positions.$inferSelect;
