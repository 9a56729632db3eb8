/** The sandbox as a launcher service: configuration → deps, banner with its URL and demo integration. */
import { bannerLine, bannerSecret, type ServiceFactory } from "../../shared/service.js";
import { buildSandboxApp } from "./app.js";
import type { SandboxConfig } from "./config.js";
import { sandboxStateFile } from "./store/persistence.js";

export const createSandboxService: ServiceFactory<SandboxConfig> = async ({ config, urls, logger }) => {
  // The sandbox keeps no database (ctx.database is ignored on purpose), only a state file under DATA_DIR.
  const started = Date.now();
  const { app, context, demoIntegrationId } = buildSandboxApp({
    logger,
    seed: config.SANDBOX_SEED,
    applications: config.SANDBOX_APPLICATIONS,
    apiKey: config.UPSTREAM_API_KEY,
    webhookSecret: config.UPSTREAM_WEBHOOK_SECRET,
    webhookUrl: urls.webhookReceiver,
    demoOrgId: config.DEMO_ORG_ID,
    publicOrigin: urls.sandboxOrigin,
    latencyMs: config.SANDBOX_LATENCY_MS,
    rateLimitPerSecond: config.SANDBOX_RATE_LIMIT_PER_SECOND,
    concurrencyLimit: config.SANDBOX_CONCURRENCY_LIMIT,
    faultRate: config.SANDBOX_FAULT_RATE,
    // Beside Hirebridge's own storage, so a restart keeps both sides in step (`hirebridge reset` wipes both).
    stateFile: sandboxStateFile(config.DATA_DIR),
  });
  logger.info({ ms: Date.now() - started, applications: config.SANDBOX_APPLICATIONS }, "sandbox data generated");
  // A saved state wins over changed settings (Hirebridge's database refers to its records); say so.
  const demo = context.store.get(demoIntegrationId)?.generation;
  if (demo && (String(demo.seed) !== String(config.SANDBOX_SEED) || demo.applications !== config.SANDBOX_APPLICATIONS)) {
    logger.warn(
      { saved: demo, configured: { seed: config.SANDBOX_SEED, applications: config.SANDBOX_APPLICATIONS } },
      "the sandbox state under DATA_DIR was made with other SANDBOX_SEED/SANDBOX_APPLICATIONS and is kept; `hirebridge reset` starts both sides over with the new ones",
    );
  }
  return {
    name: "sandbox",
    app,
    port: config.SANDBOX_PORT,
    banner: () => [
      bannerLine(
        "Upstream sandbox",
        `${urls.sandbox}  (API key ${bannerSecret(config.UPSTREAM_API_KEY, "sandbox-api-key", "UPSTREAM_API_KEY")}; admin ${urls.sandboxOrigin}/sandbox/integrations)`,
      ),
      bannerLine("ATS page", `${urls.sandboxOrigin}/sandbox/ats  (the sandbox as the customer's ATS shows it)`),
      bannerLine(
        "Demo integration",
        `${demoIntegrationId}  (${context.store.get(demoIntegrationId)?.data.applications.size ?? 0} applications; webhooks → ${urls.webhookReceiver}/<kind>)`,
      ),
    ],
  };
};
