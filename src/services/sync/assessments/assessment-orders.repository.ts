import { and, desc, eq, lt, or, sql } from "drizzle-orm";
import type { Queryable } from "../../../shared/db/database.js";
import { decodeKeysetCursor, encodeKeysetCursor, type KeysetCursor, keysetTimestamp } from "../../../shared/db/keyset-cursor.js";
import { assessmentOrders, type AssessmentOrderRow, assessmentSettings, type AssessmentSettingsRow } from "./assessments.tables.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (s: string) => UUID.test(s);

export type NewAssessmentOrder = typeof assessmentOrders.$inferInsert;

/**
 * Holds the order's key (integration, upstream order id) until the caller's transaction ends: the
 * deliveries of one order (at-least-once, possibly at once) are decided one after the other, so
 * the second finds what the first recorded.
 */
export async function lockOrderKey(tx: Queryable, integrationId: string, orderId: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`assessment-order:${integrationId}:${orderId}`}))`);
}

export async function findOrder(q: Queryable, integrationId: string, orderId: string): Promise<AssessmentOrderRow | null> {
  const [row] = await q
    .select()
    .from(assessmentOrders)
    .where(and(eq(assessmentOrders.integrationId, integrationId), eq(assessmentOrders.orderId, orderId)));
  return row ?? null;
}

/** Records the order once; the row as it is now (the earlier one when the order was recorded before). */
export async function recordOrder(q: Queryable, values: NewAssessmentOrder): Promise<{ row: AssessmentOrderRow; inserted: boolean }> {
  const [row] = await q.insert(assessmentOrders).values(values).onConflictDoNothing().returning();
  if (row) return { row, inserted: true };
  return { row: (await findOrder(q, values.integrationId, values.orderId))!, inserted: false };
}

/** The order's result went out: COMPLETED or CANCELLED; the row, or null when it is not recorded (or settled already). */
export async function settleOrder(
  q: Queryable,
  integrationId: string,
  orderId: string,
  resultStatus: "COMPLETED" | "CANCELLED",
): Promise<AssessmentOrderRow | null> {
  const [row] = await q
    .update(assessmentOrders)
    .set({ resultStatus, updatedAt: new Date() })
    .where(
      and(
        eq(assessmentOrders.integrationId, integrationId),
        eq(assessmentOrders.orderId, orderId),
        eq(assessmentOrders.resultStatus, "OPEN"),
      ),
    )
    .returning();
  return row ?? null;
}

/** A page of the organisation's orders from the integration, newest first (keyset on created_at, id). */
export async function listOrders(
  q: Queryable,
  orgId: string,
  integrationId: string,
  page: { limit: number; after?: KeysetCursor | undefined },
): Promise<{ rows: AssessmentOrderRow[]; next: string | null }> {
  const at = keysetTimestamp(assessmentOrders.createdAt);
  const after = page.after;
  const found = await q
    .select({ row: assessmentOrders, at })
    .from(assessmentOrders)
    .where(
      and(
        eq(assessmentOrders.orgId, orgId),
        eq(assessmentOrders.integrationId, integrationId),
        after
          ? or(
              lt(assessmentOrders.createdAt, sql`${after.createdAt}::timestamptz`),
              and(eq(assessmentOrders.createdAt, sql`${after.createdAt}::timestamptz`), lt(assessmentOrders.id, after.id)),
            )
          : undefined,
      ),
    )
    .orderBy(desc(assessmentOrders.createdAt), desc(assessmentOrders.id))
    .limit(page.limit + 1);
  const rows = found.slice(0, page.limit);
  const last = found.length > page.limit ? rows.at(-1) : undefined;
  return { rows: rows.map((r) => r.row), next: last ? encodeKeysetCursor({ createdAt: last.at, id: last.row.id }) : null };
}

export const decodeOrderCursor = (text: string) => decodeKeysetCursor(text, isUuid);

export async function findSettings(q: Queryable, integrationId: string): Promise<AssessmentSettingsRow | null> {
  const [row] = await q.select().from(assessmentSettings).where(eq(assessmentSettings.integrationId, integrationId));
  return row ?? null;
}

/** The organisation's integrations turned on to take orders (beside those of category ASSESSMENT). */
export async function integrationsTakingOrders(q: Queryable, orgId: string): Promise<string[]> {
  const rows = await q
    .select({ id: assessmentSettings.integrationId })
    .from(assessmentSettings)
    .where(and(eq(assessmentSettings.orgId, orgId), eq(assessmentSettings.takesOrders, true)));
  return rows.map((r) => r.id);
}

export async function setTakesOrders(
  q: Queryable,
  integrationId: string,
  orgId: string,
  takesOrders: boolean,
): Promise<AssessmentSettingsRow> {
  const [row] = await q
    .insert(assessmentSettings)
    .values({ integrationId, orgId, takesOrders })
    .onConflictDoUpdate({ target: assessmentSettings.integrationId, set: { takesOrders, updatedAt: new Date() } })
    .returning();
  return row!;
}

export async function markPublished(q: Queryable, integrationId: string, orgId: string, at: Date): Promise<void> {
  await q
    .insert(assessmentSettings)
    .values({ integrationId, orgId, publishedAt: at })
    .onConflictDoUpdate({ target: assessmentSettings.integrationId, set: { publishedAt: at, updatedAt: at } });
}

/** When the newest order recorded from the integration was received; null when none was. */
export async function latestOrderAt(q: Queryable, integrationId: string): Promise<Date | null> {
  const [row] = await q
    .select({ at: assessmentOrders.createdAt })
    .from(assessmentOrders)
    .where(eq(assessmentOrders.integrationId, integrationId))
    .orderBy(desc(assessmentOrders.createdAt))
    .limit(1);
  return row?.at ?? null;
}
