import type { AssessmentPackage } from "../../../contracts/proxy/assessment-orders.js";
import type { Db, Queryable, Tx } from "../../../shared/db/database.js";
import type { AssessmentRecruiting } from "../../../shared/ports/assessment-orders.js";
import type { IntegrationLookup } from "../../../shared/ports/integrations.js";
import { cut } from "../../../shared/text.js";
import type { AtsReader } from "../ats-reader.js";
import { findSettings, integrationsTakingOrders, markPublished } from "./assessment-orders.repository.js";

export type PackagesDeps = {
  db: Db;
  reader: AtsReader;
  integrations: Pick<IntegrationLookup, "listOwned" | "findOwned" | "requireOwned">;
  recruiting: AssessmentRecruiting<Tx, Queryable>;
};

/** The upstream's category of integrations that take orders by nature. */
export const ASSESSMENT_CATEGORY = "ASSESSMENT";

/**
 * The one rule for whether an integration takes orders: its category is ASSESSMENT, or its
 * organisation turned orders on for it (`PUT …/assessment/settings`). The settings answer, the
 * order receivers and the listing fallback all decide by it, so an order is never taken where
 * the organisation is told the integration does not take orders.
 */
export function takesOrders(category: string | null | undefined, settings: { takesOrders: boolean } | null | undefined): boolean {
  return category === ASSESSMENT_CATEGORY || settings?.takesOrders === true;
}

/** Whether a live integration of `orgId` takes orders (false when it is deleted or another organisation's). */
export async function integrationTakesOrders(
  deps: { db: Queryable; integrations: Pick<IntegrationLookup, "findOwned"> },
  integrationId: string,
  orgId: string,
): Promise<boolean> {
  const owned = await deps.integrations.findOwned(integrationId, orgId);
  return owned !== null && takesOrders(owned.category, await findSettings(deps.db, integrationId));
}

/** The organisation's templates as the upstream's packages: id, VIDEO_INTERVIEW, name, role description. */
export async function packagesOf(deps: Pick<PackagesDeps, "db" | "recruiting">, orgId: string): Promise<AssessmentPackage[]> {
  const rows = await deps.recruiting.packages(deps.db, orgId);
  return rows.map((p) => ({ id: p.id, type: "VIDEO_INTERVIEW", name: p.name, description: cut(p.roleDescription ?? "", 2000) }));
}

/** The organisation's live integrations that take orders: category ASSESSMENT, and those turned on. */
export async function integrationsOrdering(deps: Pick<PackagesDeps, "db" | "integrations">, orgId: string): Promise<string[]> {
  const out = new Set<string>();
  let after: Parameters<PackagesDeps["integrations"]["listOwned"]>[1]["after"];
  for (;;) {
    const page = await deps.integrations.listOwned(orgId, { limit: 200, after });
    for (const r of page.rows) if (r.category === ASSESSMENT_CATEGORY) out.add(r.id);
    if (!page.more || !page.last) break;
    after = page.last;
  }
  for (const id of await integrationsTakingOrders(deps.db, orgId)) {
    // Turned on once, but deleted (or never this organisation's) since: not a target.
    if (out.has(id) || (await deps.integrations.findOwned(id, orgId))) out.add(id);
  }
  return [...out];
}

/**
 * Publishes the organisation's packages to one integration: the upstream's list is replaced by
 * the whole of it (`PUT /assessment/packages`), so a template archived or deleted since the last
 * publication disappears from the ATS's choice.
 */
export async function publishTo(deps: PackagesDeps, orgId: string, integrationId: string, packages?: AssessmentPackage[]) {
  const list = packages ?? (await packagesOf(deps, orgId));
  await deps.reader.action(integrationId, "PUT", "/assessment/packages", { packages: list });
  const at = new Date();
  await markPublished(deps.db, integrationId, orgId, at);
  return { packages: list, published_at: at.toISOString() };
}

/** Publishes the organisation's packages to each of its integrations that take orders; answers how many. */
export async function publishAll(deps: PackagesDeps, orgId: string): Promise<number> {
  const targets = await integrationsOrdering(deps, orgId);
  if (!targets.length) return 0;
  const packages = await packagesOf(deps, orgId);
  for (const id of targets) await publishTo(deps, orgId, id, packages);
  return targets.length;
}
