import type { FastifyRequest } from "fastify";
import { forbidden } from "../errors.js";
import { principalOf } from "./bearer.plugin.js";

const ORG_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The caller's organisation; integrations belong to one, so a token without it can reach none. */
export function callerOrg(request: FastifyRequest): string {
  const orgId = principalOf(request).orgId;
  if (!orgId || !ORG_ID.test(orgId)) throw forbidden("The access token carries no organisation (org_id claim)");
  return orgId.toLowerCase();
}
