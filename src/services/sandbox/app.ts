/**
 * The upstream sandbox: a local stand-in for the unified ATS API (Kombo's wire protocol) at /v1,
 * its connect page at /connect/link/…, and an admin surface at /sandbox/… that acts as the ATS
 * would (so demos and tests can cause upstream changes and webhooks). Everything is in memory; with
 * a state file (the launcher's DATA_DIR) it also survives a restart (store/persistence.ts).
 */
import type { FastifyInstance } from "fastify";
import { createApp, type App } from "../../shared/http/create-app.js";
import { createSandboxContextParts, type SandboxContext, type SandboxDeps } from "./context.js";
import { registerAdminRoutes } from "./admin/admin.routes.js";
import { registerAtsPageRoutes } from "./ats-page/ats-page.routes.js";
import { registerConnectPageRoutes } from "./connect/connect-page.routes.js";
import { installUpstreamErrorHandler } from "./errors.js";
import { installUpstreamGuards } from "./http/upstream-guards.js";
import { registerAssessmentRoutes } from "./routes/assessment.routes.js";
import { registerAtsReadRoutes } from "./routes/ats-read.routes.js";
import { registerAtsWriteRoutes } from "./routes/ats-write.routes.js";
import { registerConnectRoutes } from "./routes/connect.routes.js";
import { registerGeneralRoutes } from "./routes/general.routes.js";
import { registerIntegrationRoutes } from "./routes/integrations.routes.js";
import { createSandboxPersistence, loadSandboxState } from "./store/persistence.js";
import { SandboxStore } from "./store/sandbox-store.js";
import { DEFAULT_RETRY_POLICY, WebhookSender } from "./webhooks/webhook-sender.js";

export type { SandboxDeps } from "./context.js";
export type SandboxApp = { app: App; context: SandboxContext; demoIntegrationId: string };

export const DEMO_TOOL = "greenhouse";
const CLOSE_DRAIN_MS = 2000;

export function buildSandboxApp(deps: SandboxDeps): SandboxApp {
  const clock = deps.clock ?? Date.now;
  const parts = createSandboxContextParts(deps);
  const store = new SandboxStore(deps.seed, clock);
  const restoredDemoId = deps.stateFile ? loadSandboxState(store, deps.stateFile, deps.logger) : null;
  const demoIntegrationId =
    restoredDemoId ??
    store.createIntegration({
      toolId: DEMO_TOOL,
      applications: deps.applications,
      endUser: {
        organization_name: deps.demoOrgName ?? "Demo Organisation",
        creator_email: "demo@hirebridge.local",
        origin_id: deps.demoOrgId,
      },
    }).id;
  const persistence = deps.stateFile ? createSandboxPersistence(store, demoIntegrationId, deps.stateFile, deps.logger) : undefined;
  const webhooks = new WebhookSender({
    secret: deps.webhookSecret,
    target: () => parts.settings.webhook_url,
    logger: deps.logger.child({ component: "webhooks" }),
    retry: { ...DEFAULT_RETRY_POLICY, ...deps.webhookRetry },
  });
  const context: SandboxContext = {
    deps,
    store,
    webhooks,
    clock,
    demoIntegrationId,
    timers: new Set(),
    changed: persistence ? () => persistence.changed() : () => {},
    ...parts,
  };

  const app = createApp({ service: "sandbox", logger: deps.logger, errorHandler: false });
  installUpstreamErrorHandler(app);
  app.register(
    async (v1) => {
      const scoped = v1 as unknown as App;
      installUpstreamGuards(v1 as FastifyInstance, context);
      registerGeneralRoutes(scoped, context);
      registerIntegrationRoutes(scoped, context);
      registerAtsReadRoutes(scoped, context);
      registerAtsWriteRoutes(scoped, context);
      registerConnectRoutes(scoped, context);
      registerAssessmentRoutes(scoped, context);
    },
    { prefix: "/v1" },
  );
  registerConnectPageRoutes(app, context);
  registerAdminRoutes(app, context);
  registerAtsPageRoutes(app, context);
  if (persistence) {
    // Every successful write (upstream API, connect page, admin) changes the state; reads never do.
    app.addHook("onResponse", (request, reply, done) => {
      if (request.method !== "GET" && request.method !== "HEAD" && reply.statusCode < 400) persistence.changed();
      done();
    });
    if (!restoredDemoId) persistence.changed();
  }

  // Held "timeout" faults and pending syncs must not keep a closing server waiting. In-flight
  // answers get a short drain; a client that stopped reading a large page without closing its
  // socket would otherwise hold the close until keep-alive expires (72 s).
  app.addHook("preClose", async () => {
    context.faults.releaseAll();
    for (const t of context.timers) clearTimeout(t);
    context.timers.clear();
    if (app.server.listening) {
      const deadline = setTimeout(() => app.server.closeAllConnections(), CLOSE_DRAIN_MS);
      app.server.once("close", () => clearTimeout(deadline));
    }
  });
  app.addHook("onClose", async () => {
    await webhooks.close();
    await persistence?.flush();
  });
  return { app, context, demoIntegrationId };
}
