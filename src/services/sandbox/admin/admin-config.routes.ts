/**
 * Admin: the realism knobs at run time (latency, rate and concurrency limits, faults, webhook
 * receiver) and the webhook delivery log.
 */
import type { App } from "../../../shared/http/create-app.js";
import type { SandboxContext } from "../context.js";
import { RuntimeSettingsPatchSchema } from "../limits/runtime-settings.js";
import { WebhookLogQuery } from "./admin.schemas.js";

export function registerAdminConfigRoutes(app: App, ctx: SandboxContext): void {
  app.get("/sandbox/config", async () => ctx.settings);

  app.put("/sandbox/config", { schema: { body: RuntimeSettingsPatchSchema } }, async (request) => {
    Object.assign(ctx.settings, request.body);
    request.log.info({ settings: ctx.settings }, "sandbox settings changed");
    return ctx.settings;
  });

  app.get("/sandbox/webhooks", { schema: { querystring: WebhookLogQuery } }, async (request) => {
    const { type, integration_id, limit } = request.query;
    const matching = ctx.webhooks.deliveries().filter((d) => {
      if (type && d.type !== type) return false;
      if (!integration_id) return true;
      const data = d.event.data as { integration_id?: string; id?: string };
      return (data.integration_id ?? data.id) === integration_id;
    });
    return { deliveries: limit ? matching.slice(-limit) : matching };
  });
}
