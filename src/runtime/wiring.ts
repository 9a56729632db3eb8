import type { Database } from "../shared/db/database.js";
import type { JobQueue } from "../shared/jobs/queue.js";
import type { ProxyAppOptions } from "../services/proxy/app.js";
import type { HostedModule } from "../services/proxy/proxy-deps.js";
import { createRecruitingService } from "../services/recruiting/service.js";
import { createAssessmentStore, createSyncStore, writeBackSource, type RecruitingHooks } from "../services/recruiting/upstream/index.js";
import { serviceUrls } from "../shared/config.js";
import { writeBackHook } from "../services/sync/write-back.js";
import { templatesChangedHook } from "../services/sync/assessments/package-jobs.js";
import type { WebhooksOut, WebhooksOutDeps } from "../services/webhooks-out/module.js";
import { bannerLine, type ServiceContext, type ServiceFactory } from "../shared/service.js";
import type { ConfigOf } from "./config.js";
import type { IntegrationOwnership } from "../shared/ports/integration-ownership.js";
import { integrationOwnersOf } from "../services/proxy/integrations/integration-owners.js";
import { createAuditLog, purgeExpired } from "../services/audit/audit-log.js";
import { auditLogRoutes } from "../services/audit/index.js";
import { createRetention } from "../services/retention/module.js";
import type { EraseCandidates } from "../services/retention/retention-run.js";
import { eraseCandidates } from "../services/recruiting/erasure/erasure.js";
import type { Db, Queryable } from "../shared/db/database.js";
import type { AuditLog } from "../shared/ports/audit-log.js";
import type { EventsOut } from "../shared/ports/events-out.js";
import { serviceAccountRoutes } from "../services/token/service-accounts/service-accounts.routes.js";

/**
 * The one place the services meet, through the interfaces of src/shared/ports/. The sync module
 * runs in the proxy's process, on its port: it gets the proxy's integration directory
 * (`IntegrationLookup`) and upstream client, and reads and writes the recruiting data through the
 * recruiting API's repositories (`WriteBackSource`, and the sync engine's `RecruitingStore` of
 * positions and candidates). The recruiting API records an ended interview's ATS write-back
 * through the sync module's hook (`InterviewEndedHook`), in the same transaction. Both record the
 * outbound events of their changes through the process's outbound webhooks (`EventsOut`).
 *
 * The proxy and the sync module are imported when a proxy is built, not with this file: `serve api`
 * loads only the recruiting API and the write-back hook (the proxy side brings the upstream client,
 * the webhook receivers, the sync engine and, with REDIS_URL, ioredis).
 */
export const syncOnProxy: HostedModule<ConfigOf<"proxy">> = async (host) => {
  const { startSyncModule } = await import("../services/sync/sync-module.js");
  const webhooks = await acquireWebhooksOut({ config: host.config, database: host.database, logger: host.logger });
  const events = webhooks.module.events;
  try {
    const sync = await startSyncModule({
      ...host,
      source: writeBackSource,
      store: createSyncStore({
        interviewBaseUrl: serviceUrls(host.config).interview,
        events,
        suppressionKey: host.config.ERASURE_SUPPRESSION_SECRET,
      }),
      assessments: createAssessmentStore({ interviewBaseUrl: serviceUrls(host.config).interview, events }),
      events,
    });
    return {
      ...sync,
      close: async () => {
        await sync.close();
        await webhooks.release();
      },
    };
  } catch (err) {
    await webhooks.release();
    throw err;
  }
};

/** The recruiting API's hooks: an interview that ends records its ATS write-back and queues its job on `queue`. */
export const recruitingHooks = (queue: JobQueue): RecruitingHooks => ({
  onInterviewEnded: writeBackHook(queue),
  // A template changed: the organisation's interview packages are published again (docs/assessments.md).
  onTemplatesChanged: templatesChangedHook(queue),
});

/** The integration proxy with the sync module on its port: what `serve proxy` runs, and what the tests build. */
export const buildProxyWithSync = async (opts: ProxyAppOptions<ConfigOf<"proxy">>) => {
  const { buildProxyApp } = await import("../services/proxy/app.js");
  return buildProxyApp({ ...opts, modules: [syncOnProxy, ...(opts.modules ?? [])] });
};

export const proxyServiceWithSync: ServiceFactory<ConfigOf<"proxy">> = async (ctx) => {
  const { createProxyService } = await import("../services/proxy/service.js");
  return createProxyService([syncOnProxy])(ctx);
};
/**
 * Outbound webhooks, one per process and database: the recruiting API serves their endpoints and
 * records its events through them, the sync module (proxy) records its own; the first service that
 * asks starts them (and their dispatcher), the last that lets go stops them.
 */
/** The organisations' audit log (services/audit): the recruiting API and outbound webhooks record their changes in it. */
const auditLog = createAuditLog();

const webhooksOut = new WeakMap<Database, { module: Promise<WebhooksOut>; users: number }>();

export async function acquireWebhooksOut(deps: WebhooksOutDeps): Promise<{ module: WebhooksOut; release(): Promise<void> }> {
  let entry = webhooksOut.get(deps.database);
  if (!entry) {
    const module = import("../services/webhooks-out/module.js").then(async ({ createWebhooksOut }) => {
      const created = createWebhooksOut({ audit: auditLog, ...deps });
      await created.start();
      return created;
    });
    entry = { module, users: 0 };
    webhooksOut.set(deps.database, entry);
  }
  entry.users++;
  const held = entry;
  const module = await held.module;
  let released = false;
  return {
    module,
    async release() {
      if (released) return;
      released = true;
      if (--held.users > 0) return;
      webhooksOut.delete(deps.database);
      await module.close();
    },
  };
}

/**
 * Whose each integration is, for the recruiting API: the proxy's integrations table read through the
 * one IntegrationOwnership implementation, shared with the proxy's directory when both run in the
 * process (`serve api` alone reads the same table). Positions and candidates link only to their
 * organisation's own integrations. Read on the request path's pool (its shorter statement bound).
 */
export const recruitingOwnership = (database: Database): IntegrationOwnership =>
  integrationOwnersOf(database.requestDb) satisfies IntegrationOwnership;

const recruitingExtensions = async (ctx: ServiceContext<ConfigOf<"api">>) => {
  const { module, release } = await acquireWebhooksOut({ config: ctx.config, database: ctx.database!, logger: ctx.logger });
  // Temporary endpoints (`webhooks listen`) past their idle time are swept by the job queue's workers.
  if (ctx.config.WORKERS) await module.startSweep(await ctx.jobQueue(), { schedule: true });
  return {
    events: module.events,
    // Service accounts live in the embedded token service's storage: managed here only when the APIs trust it.
    modules: [
      module.routes,
      auditLogRoutes(ctx.database!),
      ...(ctx.config.AUTH_ISSUER ? [] : [serviceAccountRoutes(ctx.database!, { realm: ctx.config.AUTH_REALM })]),
    ],
    bannerLines: [bannerLine("Webhooks out", module.banner())],
    close: release,
    ownership: recruitingOwnership(ctx.database!),
    audit: auditLog,
  };
};

/**
 * The retention job's erasure path (services/retention's EraseCandidates): the recruiting API's
 * erasure of a candidate (services/recruiting/erasure), each due candidate with its tombstone,
 * audit entry and `candidate.erased` event. Only the application is suppressed, not the email: a
 * person whose data was kept long enough may apply again.
 */
export const candidateErasure =
  (
    database: Database,
    config: { ERASURE_SUPPRESSION_SECRET: string },
    opts: { audit?: AuditLog<Queryable, Db>; events?: EventsOut<Queryable> } = {},
  ): EraseCandidates =>
  async (orgId, ids, { actor, reason }) =>
    (
      await eraseCandidates(database.db, orgId, ids, {
        actor,
        reason,
        suppressEmail: false,
        key: config.ERASURE_SUPPRESSION_SECRET,
        audit: opts.audit,
        events: opts.events,
      })
    )["candidates"] ?? 0;

/**
 * Data retention on the recruiting API (services/retention): the policy's routes, and with WORKERS the
 * retention job's worker and schedule on the process's queue. It purges the audit log past its
 * retention too (services/audit's purgeExpired).
 */
const withRetention =
  (extensions: typeof recruitingExtensions) =>
  async (ctx: ServiceContext<ConfigOf<"api">>): Promise<Awaited<ReturnType<typeof recruitingExtensions>>> => {
    const ext = await extensions(ctx);
    const database = ctx.database!;
    const retention = createRetention({
      config: ctx.config,
      database,
      logger: ctx.logger,
      audit: createAuditLog(),
      // Due candidates are erased through the API's erasure path, with their audit entries and candidate.erased events.
      erase: candidateErasure(database, ctx.config, { audit: auditLog, events: ext.events }),
      extraPurges: { audit_log: (now) => purgeExpired(database.db, now, ctx.config.AUDIT_RETENTION_DAYS) },
    });
    if (ctx.config.WORKERS) await retention.startJob(await ctx.jobQueue());
    return { ...ext, modules: [...ext.modules, retention.routes] };
  };

export const recruitingServiceWithWriteBack: ServiceFactory<ConfigOf<"api">> = createRecruitingService(
  recruitingHooks,
  withRetention(recruitingExtensions),
);
