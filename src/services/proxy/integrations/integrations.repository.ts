import { and, asc, eq, isNull, or, sql, type SQL } from "drizzle-orm";
import { keysetPage, keysetTimestamp, type KeysetCursor } from "../../../shared/db/keyset-cursor.js";
import type { Queryable } from "../../../shared/db/database.js";
import type { IntegrationStateReport } from "../../../shared/ports/integrations.js";
import { integrations, type IntegrationRow } from "./integrations.tables.js";

/** What Hirebridge knows of an integration when it learns of it. */
export type IntegrationRecordInput = {
  id: string;
  orgId: string;
  tool: string;
  category?: string | null | undefined;
  status?: string | null | undefined;
  setupStatus?: string | null | undefined;
  qaStatus?: string | null | undefined;
  /** The end user's organisation as the upstream names it (end_user.organization_name). */
  organizationName?: string | null | undefined;
};

/** A state report (integration-state-changed, or fresh integration details); `at` orders reports. */
export type IntegrationStateInput = IntegrationStateReport;

/**
 * Records an integration for an organisation (idempotent). An integration never changes
 * organisation: when `id` is already recorded for another org nothing changes and null is returned.
 * Known state is kept (state changes go through `setIntegrationState`, which orders them), and a
 * deleted integration stays deleted.
 */
export async function recordIntegration(q: Queryable, input: IntegrationRecordInput): Promise<IntegrationRow | null> {
  const [row] = await q
    .insert(integrations)
    .values({
      id: input.id,
      orgId: input.orgId,
      tool: input.tool,
      category: input.category ?? null,
      status: input.status ?? null,
      setupStatus: input.setupStatus ?? null,
      qaStatus: input.qaStatus ?? null,
      organizationName: input.organizationName ?? null,
    })
    .onConflictDoUpdate({
      target: integrations.id,
      set: {
        category: sql`coalesce(${integrations.category}, excluded.category)`,
        status: sql`coalesce(${integrations.status}, excluded.status)`,
        setupStatus: sql`coalesce(${integrations.setupStatus}, excluded.setup_status)`,
        qaStatus: sql`coalesce(${integrations.qaStatus}, excluded.qa_status)`,
        // The name is the upstream's latest word (it may rename the end user's organisation).
        organizationName: sql`coalesce(excluded.organization_name, ${integrations.organizationName})`,
        updatedAt: sql`now()`,
      },
      setWhere: sql`${integrations.orgId} = excluded.org_id`,
    })
    .returning();
  return row ?? null;
}

/** The integration, deleted or not; null when Hirebridge has never heard of it. */
export async function findIntegration(q: Queryable, id: string): Promise<IntegrationRow | null> {
  const [row] = await q.select().from(integrations).where(eq(integrations.id, id));
  return row ?? null;
}

/** Every ATS integration that is neither deleted nor paused (the weekly full sync's list). */
export async function listSyncableIntegrations(q: Queryable): Promise<{ id: string; orgId: string }[]> {
  return q
    .select({ id: integrations.id, orgId: integrations.orgId })
    .from(integrations)
    .where(
      and(
        isNull(integrations.deletedAt),
        or(isNull(integrations.status), eq(integrations.status, "ACTIVE")),
        or(isNull(integrations.category), eq(integrations.category, "ATS")),
      ),
    );
}

/** Soft-deletes; the first deletion time is kept. False when the integration is unknown. */
export async function markIntegrationDeleted(q: Queryable, id: string, at: Date = new Date()): Promise<boolean> {
  const rows = await q
    .update(integrations)
    .set({ deletedAt: sql`coalesce(${integrations.deletedAt}, ${at.toISOString()}::timestamptz)`, updatedAt: sql`now()` })
    .where(eq(integrations.id, id))
    .returning({ id: integrations.id });
  return rows.length > 0;
}

/**
 * Applies a state report unless a newer one was applied already (webhooks arrive unordered).
 * Fields left undefined are kept. False when the integration is unknown or the report is older.
 */
export async function setIntegrationState(q: Queryable, id: string, state: IntegrationStateInput): Promise<boolean> {
  const set: Partial<typeof integrations.$inferInsert> = { stateChangedAt: state.at, updatedAt: new Date() };
  if (state.status !== undefined) set.status = state.status;
  if (state.setupStatus !== undefined) set.setupStatus = state.setupStatus;
  if (state.qaStatus !== undefined) set.qaStatus = state.qaStatus;
  if (state.category !== undefined) set.category = state.category;
  if (state.organizationName) set.organizationName = state.organizationName;
  const rows = await q
    .update(integrations)
    .set(set)
    .where(
      and(
        eq(integrations.id, id),
        or(isNull(integrations.stateChangedAt), sql`${integrations.stateChangedAt} <= ${state.at.toISOString()}::timestamptz`),
      ),
    )
    .returning({ id: integrations.id });
  return rows.length > 0;
}

/**
 * Gives a live integration of `orgId` the name people see (null: the upstream's organisation name
 * again). Null when it is not a live integration of that organisation.
 */
export async function renameIntegration(
  q: Queryable,
  id: string,
  orgId: string,
  displayName: string | null,
): Promise<IntegrationRow | null> {
  const [row] = await q
    .update(integrations)
    .set({ displayName, updatedAt: new Date() })
    .where(and(eq(integrations.id, id), eq(integrations.orgId, orgId), isNull(integrations.deletedAt)))
    .returning();
  return row ?? null;
}

/**
 * One page of an organisation's live integrations, oldest first (keyset on created_at, id): one
 * query whatever the page size. The sync module adds each one's runs and write-backs.
 */
export async function listIntegrations(
  q: Queryable,
  orgId: string,
  opts: { limit?: number | undefined; after?: KeysetCursor | undefined } = {},
): Promise<{ rows: IntegrationRow[]; last: KeysetCursor | null; more: boolean }> {
  const where: SQL[] = [eq(integrations.orgId, orgId), isNull(integrations.deletedAt)];
  if (opts.after) {
    where.push(sql`(${integrations.createdAt}, ${integrations.id}) > (${opts.after.createdAt}::timestamptz, ${opts.after.id})`);
  }
  const base = q
    .select({ row: integrations, cursorAt: keysetTimestamp(integrations.createdAt) })
    .from(integrations)
    .where(and(...where))
    .orderBy(asc(integrations.createdAt), asc(integrations.id));
  const found = opts.limit === undefined ? await base : await base.limit(opts.limit + 1);
  const { page, more, last } = keysetPage(found, opts.limit);
  return { rows: page.map((r) => r.row), last, more };
}
