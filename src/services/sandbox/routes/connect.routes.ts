/**
 * The connect operations of the API (reference §2c): create-link hands out a link to the
 * sandbox's connect page (connect/connect-page.routes.ts); the page's confirmation creates the
 * integration and an activation token, which integration-by-token exchanges for the integration.
 */
import { Type } from "@sinclair/typebox";
import type { App } from "../../../shared/http/create-app.js";
import { CreateLinkBodySchema, type IntegrationCategory } from "../../../contracts/upstream/index.js";
import { findTool } from "../data/tools.js";
import { originOf, type SandboxContext } from "../context.js";
import { SandboxError, inputInvalid } from "../errors.js";

export function registerConnectRoutes(app: App, ctx: SandboxContext): void {
  app.post("/connect/create-link", { schema: { body: CreateLinkBodySchema } }, async (request) => {
    const body = request.body;
    const category = (body.integration_category ?? "HRIS") as IntegrationCategory;
    const toolId = body.integration_tool ?? null;
    if (toolId !== null && !findTool(toolId, category)) {
      throw inputInvalid(`body.integration_tool: the sandbox offers no ${category} tool ${JSON.stringify(toolId)}.`);
    }
    const token = ctx.store.createLink(
      {
        kind: "connect",
        endUser: {
          organization_name: body.end_user_organization_name,
          creator_email: body.end_user_email,
          origin_id: body.end_user_origin_id ?? null,
        },
        category,
        toolId,
        integrationId: null,
        language: body.language ?? "en",
      },
      body.link_type ?? "EMBEDDED",
    );
    return { status: "success", data: { link: `${originOf(ctx, request)}/connect/link/${token}` } };
  });

  app.get(
    "/connect/integration-by-token/:token",
    { schema: { params: Type.Object({ token: Type.String({ minLength: 1 }) }) } },
    async (request) => {
      const integration = ctx.store.integrationByActivationToken(request.params.token);
      if (!integration) {
        throw new SandboxError(404, "PLATFORM.INPUT_INVALID", "The activation token is unknown or expired.", { title: "Invalid token" });
      }
      return {
        status: "success",
        data: {
          tool: integration.tool.id,
          id: integration.id,
          end_user_origin_id: integration.endUser.origin_id,
          end_user_organization_name: integration.endUser.organization_name,
          end_user_email: integration.endUser.creator_email,
          setup_status: integration.setupStatus,
        },
      };
    },
  );
}
