import { bigint, doublePrecision, jsonb, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";

/** Drizzle view of migrations/0206_audit_log.sql `audit_log`; the SQL file is the source of truth. */
export const auditLog = pgTable(
  "audit_log",
  {
    organizationId: uuid("organization_id").notNull(),
    seq: bigint("seq", { mode: "number" }).notNull(),
    id: uuid("id").notNull(),
    occurredAt: timestamp("occurred_at", { withTimezone: true }).notNull(),
    actorSub: text("actor_sub").notNull(),
    actorClient: text("actor_client"),
    action: text("action").notNull(),
    resourceType: text("resource_type").notNull(),
    resourceIds: text("resource_ids").array().notNull(),
    requestId: text("request_id"),
    sourceAddress: text("source_address"),
    scoreBefore: doublePrecision("score_before"),
    scoreAfter: doublePrecision("score_after"),
    details: jsonb("details").$type<Record<string, number | boolean | null>>().notNull(),
    prevHash: text("prev_hash").notNull(),
    hash: text("hash").notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.seq] })],
);
export type AuditRow = typeof auditLog.$inferSelect;

/** Drizzle view of `audit_log_heads`: each organisation's chain head (last seq and hash, purged prefix). */
export const auditLogHeads = pgTable("audit_log_heads", {
  organizationId: uuid("organization_id").primaryKey(),
  seq: bigint("seq", { mode: "number" }).notNull().default(0),
  hash: text("hash").notNull().default(""),
  purgedThrough: bigint("purged_through", { mode: "number" }).notNull().default(0),
});
export type AuditHeadRow = typeof auditLogHeads.$inferSelect;
