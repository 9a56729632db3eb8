import type { JobQueue } from "../shared/jobs/queue.js";
import type { ProxyAppOptions } from "../services/proxy/app.js";
import type { HostedModule } from "../services/proxy/proxy-deps.js";
import { createRecruitingService } from "../services/recruiting/service.js";
import { createSyncStore, writeBackSource, type RecruitingHooks } from "../services/recruiting/upstream/index.js";
import { serviceUrls } from "../shared/config.js";
import { writeBackHook } from "../services/sync/write-back.js";
import type { ServiceFactory } from "./service.js";

/**
 * The one place the services meet. The sync module runs in the proxy's process, on its port: it
 * gets the proxy's integration directory and upstream client as the interfaces it declares
 * (services/sync/ports.ts), and reads and writes the recruiting data through the recruiting API's
 * repositories (the write-back source, and the sync engine's store of positions and candidates). The recruiting API records an ended interview's ATS write-back through the sync
 * module's hook, in the same transaction.
 *
 * The proxy and the sync module are imported when a proxy is built, not with this file: `serve api`
 * loads only the recruiting API and the write-back hook (the proxy side brings the upstream client,
 * the webhook receivers, the sync engine and, with REDIS_URL, ioredis).
 */
export const syncOnProxy: HostedModule = async (host) => {
  const { startSyncModule } = await import("../services/sync/sync-module.js");
  return startSyncModule({
    ...host,
    source: writeBackSource,
    store: createSyncStore({ interviewBaseUrl: serviceUrls(host.config).interview }),
  });
};

/** The recruiting API's hooks: an interview that ends records its ATS write-back and queues its job on `queue`. */
export const recruitingHooks = (queue: JobQueue): RecruitingHooks => ({ onInterviewEnded: writeBackHook(queue, writeBackSource) });

/** The integration proxy with the sync module on its port: what `serve proxy` runs, and what the tests build. */
export const buildProxyWithSync = async (opts: ProxyAppOptions) => {
  const { buildProxyApp } = await import("../services/proxy/app.js");
  return buildProxyApp({ ...opts, modules: [syncOnProxy, ...(opts.modules ?? [])] });
};

export const proxyServiceWithSync: ServiceFactory = async (ctx) => {
  const { createProxyService } = await import("../services/proxy/service.js");
  return createProxyService([syncOnProxy])(ctx);
};
export const recruitingServiceWithWriteBack: ServiceFactory = createRecruitingService(recruitingHooks);
