import { forbidden, validationError } from "../../../shared/errors.js";
import { integrationNotFound } from "../integrations/integration-directory.js";
import { OPERATIONS } from "../operations/operations.table.js";
import { shapeBody, toUpstreamRequest } from "../operations/upstream-request.js";
import type { ProxyRoutes } from "../proxy-deps.js";
import { upstreamMalformed } from "../../../shared/upstream/upstream-errors.js";
import { callerOrg } from "../../../shared/auth/caller-org.js";
import { forward, route } from "./forward.js";

type ActivationAnswer = {
  data?: { id?: unknown; tool?: unknown; end_user_origin_id?: unknown; end_user_organization_name?: unknown; setup_status?: unknown };
};

/**
 * Connect: link creation for the caller's organisation, and the activation that completes the
 * embedded flow (the front end's activation token → the integration, recorded for the org).
 */
export const connectRoutes: ProxyRoutes = async (app, { deps }) => {
  const { createConnectLink, activateConnection } = OPERATIONS;

  route(app, createConnectLink, (request, reply) => {
    const orgId = callerOrg(request);
    const body = shapeBody(createConnectLink.schema.body, request.body);
    if (body.enable_filtering === true && body.integration_category !== "HRIS") {
      throw validationError([
        { loc: ["body", "enable_filtering"], msg: "Value error, filtering is only available for HRIS integrations", type: "value_error" },
      ]);
    }
    // The origin id is how an integration is tied to its organisation: it is always the caller's.
    if (typeof body.end_user_origin_id === "string" && body.end_user_origin_id.toLowerCase() !== orgId) {
      throw forbidden("end_user_origin_id must be the caller's organisation");
    }
    return forward(deps, createConnectLink, request, reply, { body: { ...body, end_user_origin_id: orgId } });
  });

  route(app, activateConnection, async (request, reply) => {
    const orgId = callerOrg(request);
    const { activation_token } = request.body;
    const upstreamRequest = toUpstreamRequest(activateConnection, { params: { activation_token }, requestId: request.id });
    const res = await deps.upstream.sendBuffered(upstreamRequest, request.log);
    if (res.status !== 200) return reply.status(res.status).headers(res.headers).send(res.body);
    const data = parseActivation(res.body);
    if (typeof data?.id !== "string" || typeof data.tool !== "string") throw upstreamMalformed(200, "without an integration");
    const origin = data.end_user_origin_id;
    if (typeof origin === "string" && origin.toLowerCase() !== orgId) {
      throw forbidden("The integration was created for another organisation");
    }
    const row = await deps.integrations.record({
      id: data.id,
      orgId,
      tool: data.tool,
      setupStatus: typeof data.setup_status === "string" ? data.setup_status : null,
      organizationName: typeof data.end_user_organization_name === "string" ? data.end_user_organization_name : null,
    });
    if (!row) throw forbidden("The integration was created for another organisation");
    if (row.deletedAt) throw integrationNotFound();
    // The activation answer carries no state: take it from the upstream's details now, so the new
    // integration does not read "unknown" until the next poll or state webhook. Best effort: the
    // activation stands when the upstream cannot answer (the next state report fills it in).
    try {
      await deps.integrations.details(row.id, request.id, { bypass: true }, request.log);
    } catch (err) {
      request.log.warn({ err, integration_id: row.id }, "could not read the new integration's state from the upstream");
    }
    request.log.info({ integration_id: row.id }, "integration activated");
    return reply.status(200).headers(res.headers).send(res.body);
  });
};

function parseActivation(body: string): ActivationAnswer["data"] {
  try {
    return (JSON.parse(body) as ActivationAnswer).data;
  } catch {
    return undefined;
  }
}
