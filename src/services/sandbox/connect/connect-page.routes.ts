/**
 * The connect page and its two actions (not under /v1: the browser calls them, without the API
 * key; the link token is the credential). Confirming a connect link creates the integration for
 * the link's end user, sends integration-created, starts its first sync and answers the
 * activation token; confirming a relink link re-activates the integration.
 */
import { Type } from "@sinclair/typebox";
import type { App } from "../../../shared/http/create-app.js";
import { TOOLS, findTool } from "../data/tools.js";
import { originOf, type SandboxContext } from "../context.js";
import { SandboxError, inputInvalid } from "../errors.js";
import { startSync } from "../sync-runner.js";
import type { LinkGrant } from "../store/sandbox-store.js";
import { integrationCreated, integrationStateChanged } from "../webhooks/events.js";
import { connectPage, linkProblemPage } from "./connect-page.js";

const TokenParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) });
const ChoiceBody = Type.Object({ tool_id: Type.Optional(Type.Union([Type.Null(), Type.String()])) });
const LINK_PROBLEM = {
  unknown: [404, "The link is not valid."],
  expired: [410, "The link has expired."],
  used: [409, "The link was already used."],
} as const;

export function registerConnectPageRoutes(app: App, ctx: SandboxContext): void {
  const grantOf = (token: string): LinkGrant => {
    const found = ctx.store.link(token);
    if ("error" in found) {
      const [status, message] = LINK_PROBLEM[found.error];
      throw new SandboxError(status, "PLATFORM.INPUT_INVALID", message);
    }
    return found.grant;
  };
  const toolFor = (grant: LinkGrant, chosen: string | null | undefined) => {
    const id = grant.toolId ?? chosen;
    if (!id) throw inputInvalid("body.tool_id: pick a tool");
    const tool = findTool(id, grant.category);
    if (!tool) throw inputInvalid(`body.tool_id: no ${grant.category} tool ${JSON.stringify(id)}`);
    return tool;
  };

  app.get("/connect/link/:token", { schema: { params: TokenParams } }, async (request, reply) => {
    const found = ctx.store.link(request.params.token);
    reply.header("cache-control", "no-store").header("referrer-policy", "no-referrer").type("text/html; charset=utf-8");
    if ("error" in found) return reply.status(LINK_PROBLEM[found.error][0]).send(linkProblemPage(found.error));
    return connectPage(
      request.params.token,
      found.grant,
      TOOLS.filter((t) => t.category === found.grant.category),
    );
  });

  app.post("/connect/link/:token/confirm", { schema: { params: TokenParams, body: ChoiceBody } }, async (request) => {
    const grant = grantOf(request.params.token);
    if (grant.kind === "relink") {
      const integration = ctx.store.get(grant.integrationId ?? "");
      if (!integration) throw new SandboxError(404, "PLATFORM.INTEGRATION_NOT_FOUND", "The integration to relink no longer exists.");
      ctx.store.markLinkUsed(request.params.token);
      if (integration.status !== "ACTIVE") {
        integration.status = "ACTIVE";
        ctx.webhooks.send("integration-state-changed", integrationStateChanged(integration, ctx.clock()));
      }
      return { activation_token: ctx.store.issueActivationToken(integration.id), integration_id: integration.id };
    }
    const tool = toolFor(grant, request.body?.tool_id);
    ctx.store.markLinkUsed(request.params.token);
    const integration = ctx.store.createIntegration({ toolId: tool.id, category: grant.category, endUser: grant.endUser });
    ctx.webhooks.send("integration-created", integrationCreated(integration));
    // The upstream's first sync follows right away; its sync-finished and data-changed come after.
    startSync(ctx, integration, "FULL", originOf(ctx, request));
    return { activation_token: ctx.store.issueActivationToken(integration.id), integration_id: integration.id };
  });

  // The "wrong credentials" path: informational, the link stays usable (the flow can still succeed).
  app.post("/connect/link/:token/fail", { schema: { params: TokenParams, body: ChoiceBody } }, async (request) => {
    const grant = grantOf(request.params.token);
    const tool = toolFor(grant, request.body?.tool_id);
    ctx.webhooks.send("connection-flow-failed", {
      integration_tool: tool.id,
      integration_category: grant.category,
      end_user: grant.endUser,
      log_url: `${originOf(ctx, request)}/sandbox/webhooks`,
    });
    return { failed: true };
  });
}
