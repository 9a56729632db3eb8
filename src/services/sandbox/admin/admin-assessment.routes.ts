/**
 * Admin: the assessment channel as the ATS shows it. Placing an order stands in for the
 * recruiter's "send assessment" click; the order views show what the recruiter sees on the
 * candidate afterwards (status, rejection message, score out of the maximum, sub-results, the
 * report link and the attached files, which can be downloaded while the sandbox holds them).
 */
import type { App } from "../../../shared/http/create-app.js";
import { placeOrder } from "../assessment-orders.js";
import { originOf, type SandboxContext } from "../context.js";
import { SandboxError, recordNotFound } from "../errors.js";
import { renderOrderView, renderPackage } from "../render/assessment-render.js";
import type { OrderRow } from "../store/assessments.js";
import type { Integration } from "../store/sandbox-store.js";
import { findIntegration } from "./admin-integrations.routes.js";
import { IntegrationParams, OrderAttachmentParams, OrderParams, PlaceOrderSchema } from "./admin.schemas.js";

function findOrder(integration: Integration, orderId: string): OrderRow {
  const order = integration.assessment.orders.get(orderId);
  if (!order) throw recordNotFound("assessment order", orderId);
  return order;
}

export function registerAdminAssessmentRoutes(app: App, ctx: SandboxContext): void {
  const view = (i: Integration, o: OrderRow, origin: string) =>
    renderOrderView(o, i.id, i.assessment.package(o.packageId)?.name ?? null, origin);

  app.get("/sandbox/integrations/:id/assessment-packages", { schema: { params: IntegrationParams } }, async (request) => ({
    packages: findIntegration(ctx, request.params.id).assessment.packages.map(renderPackage),
  }));

  app.post(
    "/sandbox/integrations/:id/assessment-orders",
    { schema: { params: IntegrationParams, body: PlaceOrderSchema } },
    async (request, reply) => {
      const integration = findIntegration(ctx, request.params.id);
      const { application_id, package_id, inline } = request.body;
      const order = await placeOrder(ctx, integration, { applicationId: application_id, packageId: package_id, inline: inline ?? false });
      return reply.status(201).send(view(integration, order, originOf(ctx, request)));
    },
  );

  app.get("/sandbox/integrations/:id/assessment-orders", { schema: { params: IntegrationParams } }, async (request) => {
    const integration = findIntegration(ctx, request.params.id);
    const origin = originOf(ctx, request);
    return { orders: [...integration.assessment.orders.values()].map((o) => view(integration, o, origin)) };
  });

  app.get("/sandbox/integrations/:id/assessment-orders/:order_id", { schema: { params: OrderParams } }, async (request) => {
    const integration = findIntegration(ctx, request.params.id);
    return view(integration, findOrder(integration, request.params.order_id), originOf(ctx, request));
  });

  app.get(
    "/sandbox/integrations/:id/assessment-orders/:order_id/attachments/:index",
    { schema: { params: OrderAttachmentParams } },
    async (request, reply) => {
      const order = findOrder(findIntegration(ctx, request.params.id), request.params.order_id);
      const file = order.attachments[request.params.index];
      if (!file?.content) throw new SandboxError(404, null, "No such attachment, or its bytes are no longer kept.", { title: "Not found" });
      return reply
        .type(file.contentType ?? "application/octet-stream")
        .header("content-disposition", `attachment; filename="${file.name.replace(/["\\\r\n]/g, "_")}"`)
        .send(file.content);
    },
  );
}
