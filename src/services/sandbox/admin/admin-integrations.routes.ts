/**
 * Admin: the integrations as the upstream's dashboard would show them: list, create one for an
 * organisation directly (no connect flow), change its state, delete it. Each change sends the
 * webhook the upstream would send.
 */
import type { App } from "../../../shared/http/create-app.js";
import type { IntegrationCategory, IntegrationStatus, QaStatus, SetupStatus } from "../../../contracts/upstream/index.js";
import { findTool } from "../data/tools.js";
import type { SandboxContext } from "../context.js";
import { integrationNotFound, inputInvalid } from "../errors.js";
import type { Integration } from "../store/sandbox-store.js";
import { integrationCreated, integrationDeleted, integrationStateChanged } from "../webhooks/events.js";
import { CreateIntegrationSchema, IntegrationParams, IntegrationStateSchema } from "./admin.schemas.js";

/** The tool an integration created without one gets, per category. */
const DEFAULT_TOOL: Record<string, string> = { ATS: "greenhouse", HRIS: "personio", ASSESSMENT: "workday", LMS: "personio" };

export function integrationSummary(i: Integration) {
  return {
    id: i.id,
    tool: i.tool.id,
    category: i.category,
    state: i.status,
    setup_status: i.setupStatus,
    qa_status: i.qaStatus,
    end_user: i.endUser,
    created_at: new Date(i.createdAt).toISOString(),
    counts: {
      jobs: i.data.jobs.size,
      applications: i.data.applications.size,
      candidates: i.data.candidates.size,
      interviews: i.data.interviews.size,
      offers: i.data.offers.size,
      assessment_packages: i.assessment.packages.length,
      assessment_orders: i.assessment.orders.size,
    },
  };
}

export function findIntegration(ctx: SandboxContext, id: string): Integration {
  const integration = ctx.store.get(id);
  if (!integration) throw integrationNotFound(id);
  return integration;
}

export function registerAdminIntegrationRoutes(app: App, ctx: SandboxContext): void {
  app.get("/sandbox/integrations", async () => ({
    demo_integration_id: ctx.demoIntegrationId,
    integrations: [...ctx.store.integrations.values()].map(integrationSummary),
  }));

  app.get("/sandbox/integrations/:id", { schema: { params: IntegrationParams } }, async (request) => {
    const i = findIntegration(ctx, request.params.id);
    return {
      ...integrationSummary(i),
      sync: { pending: i.sync.pending && { id: i.sync.pending.id, type: i.sync.pending.type }, history: i.sync.history },
    };
  });

  app.post("/sandbox/integrations", { schema: { body: CreateIntegrationSchema } }, async (request, reply) => {
    const body = request.body;
    const category = (body.category ?? "ATS") as IntegrationCategory;
    const toolId = body.tool ?? DEFAULT_TOOL[category] ?? "greenhouse";
    if (!findTool(toolId, category)) throw inputInvalid(`body.tool: the sandbox offers no ${category} tool ${JSON.stringify(toolId)}`);
    const originId = body.end_user?.origin_id ?? body.org_id ?? null;
    const integration = ctx.store.createIntegration({
      toolId,
      category,
      endUser: {
        organization_name: body.end_user?.organization_name ?? `Organisation ${originId ?? "without id"}`,
        creator_email: body.end_user?.creator_email ?? null,
        origin_id: originId,
      },
      ...(body.applications !== undefined ? { applications: body.applications } : {}),
      ...(body.seed !== undefined ? { seed: body.seed } : {}),
    });
    ctx.webhooks.send("integration-created", integrationCreated(integration));
    return reply.status(201).send(integrationSummary(integration));
  });

  app.put("/sandbox/integrations/:id/state", { schema: { params: IntegrationParams, body: IntegrationStateSchema } }, async (request) => {
    const i = findIntegration(ctx, request.params.id);
    const { state, setup_status, qa_status } = request.body;
    const before = `${i.status}/${i.setupStatus}/${i.qaStatus}`;
    if (state) i.status = state as IntegrationStatus;
    if (setup_status) i.setupStatus = setup_status as SetupStatus;
    if (qa_status) i.qaStatus = qa_status as QaStatus;
    if (`${i.status}/${i.setupStatus}/${i.qaStatus}` !== before) {
      ctx.webhooks.send("integration-state-changed", integrationStateChanged(i, ctx.clock()));
    }
    return integrationSummary(i);
  });

  // Deleting "from the dashboard": the upstream tells the receiver with integration-deleted.
  app.delete("/sandbox/integrations/:id", { schema: { params: IntegrationParams } }, async (request) => {
    const i = findIntegration(ctx, request.params.id);
    ctx.store.delete(i.id);
    ctx.webhooks.send("integration-deleted", integrationDeleted(i, ctx.clock()));
    return { deleted: i.id };
  });
}
