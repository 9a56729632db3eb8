import { and, asc, count, eq, sql } from "drizzle-orm";
import type { EventType } from "../../contracts/webhooks-out/events.js";
import type { WebhookEndpoint } from "../../contracts/webhooks-out/endpoints.js";
import type { Database, Queryable } from "../../shared/db/database.js";
import { webhookEndpoints as t, type WebhookEndpointRow } from "./webhooks-out.tables.js";

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** The API's view of an endpoint: never its secrets; the old secret's expiry only while it still signs. */
export function toEndpoint(row: WebhookEndpointRow, now = new Date()): WebhookEndpoint {
  const overlap = row.previousSecretExpiresAt && row.previousSecretExpiresAt > now ? row.previousSecretExpiresAt : null;
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    event_types: row.eventTypes as EventType[],
    disabled: row.disabled,
    disabled_reason: row.disabledReason,
    failing_since: iso(row.failingSince),
    previous_secret_expires_at: iso(overlap),
    expires_at: iso(row.expiresAt),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export type NewEndpoint = {
  url: string;
  description: string;
  eventTypes: EventType[];
  disabled: boolean;
  secret: string;
  /** A temporary endpoint: its life without a keep-alive, seconds. */
  idleSeconds?: number;
};
export type EndpointPatch = Partial<Pick<NewEndpoint, "url" | "description" | "eventTypes" | "disabled">>;

export async function insertEndpoint(q: Queryable, orgId: string, v: NewEndpoint): Promise<WebhookEndpointRow> {
  const { idleSeconds, ...values } = v;
  const [row] = await q
    .insert(t)
    .values({
      organizationId: orgId,
      ...values,
      ...(idleSeconds === undefined ? {} : { expiresAt: sql`now() + make_interval(secs => ${idleSeconds})` }),
    })
    .returning();
  return row!;
}

export async function countEndpoints(q: Queryable, orgId: string): Promise<number> {
  const [row] = await q.select({ n: count() }).from(t).where(eq(t.organizationId, orgId));
  return row?.n ?? 0;
}

export async function listEndpoints(q: Queryable, orgId: string): Promise<WebhookEndpointRow[]> {
  return q.select().from(t).where(eq(t.organizationId, orgId)).orderBy(asc(t.createdAt), asc(t.id));
}

export async function findEndpoint(q: Queryable, orgId: string, id: string): Promise<WebhookEndpointRow | null> {
  const [row] = await q
    .select()
    .from(t)
    .where(and(eq(t.organizationId, orgId), eq(t.id, id)));
  return row ?? null;
}

/** Sets the fields given; enabling again clears why Hirebridge disabled it and its failure streak. */
export async function updateEndpoint(q: Queryable, orgId: string, id: string, patch: EndpointPatch): Promise<WebhookEndpointRow | null> {
  const enabling = patch.disabled === false;
  const [row] = await q
    .update(t)
    .set({ ...patch, ...(enabling ? { disabledReason: null, failingSince: null } : {}), updatedAt: sql`now()` })
    .where(and(eq(t.organizationId, orgId), eq(t.id, id)))
    .returning();
  return row ?? null;
}

/** Deletes the endpoint and its open deliveries (its attempts go with the retention). */
export async function deleteEndpoint(q: Queryable, orgId: string, id: string): Promise<boolean> {
  const rows = await q
    .delete(t)
    .where(and(eq(t.organizationId, orgId), eq(t.id, id)))
    .returning({ id: t.id });
  if (rows.length === 0) return false;
  await q.execute(sql`delete from webhook_deliveries where endpoint_id = ${id}::uuid`);
  return true;
}

/** The new secret signs from now on; the current one keeps signing too until `overlapSeconds` from now. */
export async function rotateSecret(
  q: Queryable,
  orgId: string,
  id: string,
  secret: string,
  overlapSeconds: number,
): Promise<WebhookEndpointRow | null> {
  const [row] = await q
    .update(t)
    .set({
      previousSecret: sql`${t.secret}`,
      previousSecretExpiresAt: sql`now() + make_interval(secs => ${overlapSeconds})`,
      secret,
      updatedAt: sql`now()`,
    })
    .where(and(eq(t.organizationId, orgId), eq(t.id, id)))
    .returning();
  return row ?? null;
}

/** The organisations with an enabled endpoint (the dispatcher's wake-up hint). */
export async function orgsWithEndpoints(q: Queryable): Promise<string[]> {
  const rows = await q.selectDistinct({ org: t.organizationId }).from(t).where(eq(t.disabled, false));
  return rows.map((r) => r.org);
}

/** A temporary endpoint's client is alive: its expiry moves to `idleSeconds` from now. Null: no such temporary endpoint. */
export async function keepAlive(
  q: Queryable,
  orgId: string,
  id: string,
  idleSeconds: number,
): Promise<WebhookEndpointRow | "permanent" | null> {
  const [row] = await q
    .update(t)
    .set({ expiresAt: sql`now() + make_interval(secs => ${idleSeconds})` })
    .where(and(eq(t.organizationId, orgId), eq(t.id, id), sql`${t.expiresAt} is not null`))
    .returning();
  if (row) return row;
  return (await findEndpoint(q, orgId, id)) ? "permanent" : null;
}

/**
 * Deletes the temporary endpoints past their expiry (their client stopped keeping them alive), with
 * their open deliveries; answers them with their organisation (at most `limit` per call).
 */
export async function deleteExpiredEndpoints(database: Database, limit: number): Promise<{ id: string; org: string }[]> {
  return database.query<{ id: string; org: string }>(
    `with gone as (
       delete from webhook_endpoints where id in (
         select id from webhook_endpoints where expires_at < now() order by expires_at limit $1)
       returning id, organization_id),
     open as (delete from webhook_deliveries d using gone where d.endpoint_id = gone.id)
     select id::text as id, organization_id::text as org from gone`,
    [limit],
  );
}
