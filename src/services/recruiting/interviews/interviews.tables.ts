import { integer, pgTable, text, timestamp, uniqueIndex, uuid, varchar } from "drizzle-orm/pg-core";
import { candidates } from "../candidates/candidates.tables.js";

/** Drizzle view of migrations/0201_recruiting.sql `interviews`; the SQL file is the source of truth. */
export const interviews = pgTable(
  "interviews",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id").notNull(),
    candidateId: uuid("candidate_id")
      .notNull()
      .references(() => candidates.id, { onDelete: "cascade" }),
    status: text("status").notNull().default("not_started"),
    conversationId: varchar("conversation_id", { length: 100 }),
    transcriptLink: varchar("transcript_link", { length: 350 }),
    recordingLink: varchar("recording_link", { length: 350 }),
    startTime: timestamp("start_time", { withTimezone: true }),
    endTime: timestamp("end_time", { withTimezone: true }),
    gradedAt: timestamp("graded_at", { withTimezone: true }),
    lastAttemptedAt: timestamp("last_attempted_at", { withTimezone: true }),
    ipAddress: text("ip_address"),
    location: varchar("location", { length: 200 }),
    interviewLink: varchar("interview_link", { length: 200 }),
    score: integer("score"),
    feedback: text("feedback"),
    interviewTranscript: varchar("interview_transcript", { length: 20000 }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("interviews_candidate_key").on(t.candidateId), uniqueIndex("interviews_link_key").on(t.interviewLink)],
);
export type InterviewRow = typeof interviews.$inferSelect;
