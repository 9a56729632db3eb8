import type { AssessmentOrderWebhook } from "../../../contracts/proxy/assessment-orders.js";
import type { Tx } from "../../../shared/db/database.js";
import { QUEUES, type JobQueue } from "../../../shared/jobs/queue.js";
import type { TemplatesChangedHook } from "../../../shared/ports/assessment-orders.js";
import type { IntegrationLookup } from "../../../shared/ports/integrations.js";
import { findOrder, findSettings, latestOrderAt } from "./assessment-orders.repository.js";
import { takeOrder, type OrderIntakeDeps } from "./order-intake.js";
import { integrationTakesOrders, publishAll, type PackagesDeps } from "./packages.js";

/** How long after a template's change its organisation's packages go out: changes meanwhile coalesce. */
const DEBOUNCE_SECONDS = 2;
/** The listing fallback reads orders created since the newest recorded one, less this margin (clocks differ). */
const LISTING_MARGIN_MS = 10 * 60_000;

/** The recruiting API's hook: a template changed, so the organisation's packages are published again shortly. */
export function templatesChangedHook(queue: JobQueue) {
  return (async (orgId: string, tx: Tx): Promise<void> => {
    await queue.send(QUEUES.assessmentPackages, { orgId }, { singletonKey: orgId, startAfter: DEBOUNCE_SECONDS, tx });
  }) satisfies TemplatesChangedHook<Tx>;
}

type ChannelDeps = PackagesDeps & { integrations: Pick<IntegrationLookup, "find">; queue: JobQueue; intake: OrderIntakeDeps };

/**
 * The assessment channel's worker (packages published per organisation) and what an integration's
 * sync job calls when it ends (`afterSync`, whose failure is logged, never the sync's).
 */
export async function startAssessmentWorkers(deps: ChannelDeps): Promise<(integrationId: string) => Promise<void>> {
  await deps.queue.work<{ orgId: string }>(QUEUES.assessmentPackages, async (job) => {
    await publishAll(deps, job.data.orgId);
  });
  return (integrationId) =>
    afterSync(deps, integrationId).catch((err: unknown) => {
      deps.intake.logger.warn({ err, integration_id: integrationId }, "assessment orders: the listing fallback failed");
    });
}

type UpstreamOrder = Omit<AssessmentOrderWebhook["data"], "integration_id">;

/**
 * What the assessment channel does when an integration's sync ran: an integration that takes
 * orders gets its packages the first time (connect, first sync), and orders whose webhook never
 * came (the upstream's `GET /assessment/orders`, status OPEN, created since the newest order
 * recorded) are taken as the webhook would have taken them.
 */
export async function afterSync(deps: ChannelDeps, integrationId: string): Promise<void> {
  const integration = await deps.integrations.find(integrationId);
  if (!integration || integration.deletedAt) return;
  if (!(await integrationTakesOrders(deps, integrationId, integration.orgId))) return;
  const settings = await findSettings(deps.db, integrationId);
  if (!settings?.publishedAt)
    await deps.queue.send(QUEUES.assessmentPackages, { orgId: integration.orgId }, { singletonKey: integration.orgId });
  const latest = await latestOrderAt(deps.db, integrationId);
  const query: Record<string, string> = { statuses: "OPEN", page_size: "100" };
  if (latest) query["created_after"] = new Date(latest.getTime() - LISTING_MARGIN_MS).toISOString();
  for (let cursor: string | null = null, first = true; first || cursor; first = false) {
    const page: { results: UpstreamOrder[]; next: string | null } = await deps.reader.page<UpstreamOrder>(
      integrationId,
      "/assessment/orders",
      cursor ? { ...query, cursor } : query,
    );
    for (const order of page.results) {
      if (await findOrder(deps.db, integrationId, order.id)) continue;
      await takeOrder(deps.intake, { ...order, integration_id: integrationId }, false);
    }
    cursor = page.next;
  }
}
