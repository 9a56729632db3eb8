/**
 * Integration management (reference §2a): details, delete, relink, integration fields and custom
 * fields. These name the integration in the path (the SDK percent-encodes its `:`; the router
 * decodes it) and take no X-Integration-Id header.
 */
import { Type } from "@sinclair/typebox";
import type { App } from "../../../shared/http/create-app.js";
import {
  CustomFieldMappingSchema,
  IntegrationDetailsSchema,
  IntegrationFieldPatchSchema,
  IntegrationFieldsQuerySchema,
  PagingQuerySchema,
  RelinkBodySchema,
  UpstreamSuccessSchema,
} from "../../../contracts/upstream/index.js";
import { originOf, type SandboxContext } from "../context.js";
import { integrationNotFound, recordNotFound } from "../errors.js";
import { listPage, type RawQuery } from "../http/list-query.js";
import { renderCustomField, renderIntegrationDetails, renderIntegrationField } from "../render/integration-render.js";
import type { Integration } from "../store/sandbox-store.js";
import { integrationDeleted } from "../webhooks/events.js";

const IntegrationParams = Type.Object({ integration_id: Type.String({ minLength: 1 }) });
const FieldParams = Type.Object({ integration_id: Type.String({ minLength: 1 }), integration_field_id: Type.String({ minLength: 1 }) });
const CustomFieldParams = Type.Object({ integration_id: Type.String({ minLength: 1 }), custom_field_id: Type.String({ minLength: 1 }) });

/** The integration `id`, or the upstream's 404. */
function findIntegration(ctx: SandboxContext, id: string): Integration {
  const integration = ctx.store.get(id);
  if (!integration) throw integrationNotFound(id);
  return integration;
}

/** An integration itself: its details, deletion and relink. */
function registerIntegrationRecord(app: App, ctx: SandboxContext): void {
  const find = (id: string) => findIntegration(ctx, id);
  // Serialised from the contract's schema (fast-json-stringify): exactly the upstream's fields go out.
  const detailsAnswer = { 200: UpstreamSuccessSchema(IntegrationDetailsSchema) };
  app.get("/integrations/:integration_id", { schema: { params: IntegrationParams, response: detailsAnswer } }, async (request) => ({
    status: "success" as const,
    data: renderIntegrationDetails(find(request.params.integration_id), originOf(ctx, request)),
  }));

  // The SDK sends `{}` as a JSON body on this DELETE; a bodyless DELETE is accepted too.
  app.delete("/integrations/:integration_id", { schema: { params: IntegrationParams } }, async (request) => {
    const integration = find(request.params.integration_id);
    ctx.store.delete(integration.id);
    ctx.webhooks.send("integration-deleted", integrationDeleted(integration, ctx.clock()));
    return { status: "success", data: {} };
  });

  app.post("/integrations/:integration_id/relink", { schema: { params: IntegrationParams, body: RelinkBodySchema } }, async (request) => {
    const integration = find(request.params.integration_id);
    const token = ctx.store.createLink(
      {
        kind: "relink",
        endUser: integration.endUser,
        category: integration.category,
        toolId: integration.tool.id,
        integrationId: integration.id,
        language: request.body.language ?? "en",
      },
      request.body.link_type ?? "EMBEDDED",
    );
    return { status: "success", data: { link: `${originOf(ctx, request)}/connect/link/${token}` } };
  });
}

/** An integration's fields and custom fields, and the mapping between them. */
function registerIntegrationFields(app: App, ctx: SandboxContext): void {
  const find = (id: string) => findIntegration(ctx, id);
  app.get(
    "/integrations/:integration_id/integration-fields",
    { schema: { params: IntegrationParams, querystring: IntegrationFieldsQuerySchema } },
    async (request) => {
      const { fields } = find(request.params.integration_id).fields;
      return { status: "success", data: listPage(fields, request.query as RawQuery, { filters: {} }, renderIntegrationField) };
    },
  );

  app.patch(
    "/integrations/:integration_id/integration-fields/:integration_field_id",
    { schema: { params: FieldParams, body: IntegrationFieldPatchSchema } },
    async (request) => {
      const { fields } = find(request.params.integration_id).fields;
      const field = fields.get(request.params.integration_field_id);
      if (!field) throw recordNotFound("integration field", request.params.integration_field_id);
      // null leaves the setting as it is (the key itself is required).
      if (request.body.enable_passthrough !== null) field.passthrough = request.body.enable_passthrough;
      fields.touch(field, Math.max(ctx.clock(), field.changedAt + 1));
      return { status: "success", data: renderIntegrationField(field) };
    },
  );

  app.get(
    "/integrations/:integration_id/custom-fields",
    { schema: { params: IntegrationParams, querystring: PagingQuerySchema } },
    async (request) => {
      const set = find(request.params.integration_id).fields;
      return {
        status: "success",
        data: listPage(set.customFields, request.query as RawQuery, { filters: {} }, (c) => renderCustomField(set, c)),
      };
    },
  );

  app.put(
    "/integrations/:integration_id/custom-fields/:custom_field_id",
    { schema: { params: CustomFieldParams, body: CustomFieldMappingSchema } },
    async (request) => {
      const set = find(request.params.integration_id).fields;
      const custom = set.customFields.get(request.params.custom_field_id);
      if (!custom) throw recordNotFound("custom field", request.params.custom_field_id);
      const target = request.body.integration_field_id;
      if (target !== null && !set.fields.get(target)) throw recordNotFound("integration field", target);
      custom.integrationFieldId = target;
      set.customFields.touch(custom, Math.max(ctx.clock(), custom.changedAt + 1));
      return { status: "success", data: renderCustomField(set, custom) };
    },
  );
}

export function registerIntegrationRoutes(app: App, ctx: SandboxContext): void {
  registerIntegrationRecord(app, ctx);
  registerIntegrationFields(app, ctx);
}
