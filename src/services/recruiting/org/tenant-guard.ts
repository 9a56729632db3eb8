import type { FastifyRequest } from "fastify";
import { principalOf } from "../../../shared/auth/bearer.plugin.js";
import { forbidden } from "../../../shared/errors.js";

/**
 * onRequest hook of every `/org/{org_id}/...` route, after the bearer check and before anything
 * reads the database or the body: only a token whose org_id claim equals the path's may continue.
 * The answer is the same 403 whether or not the org or the record exists, so nothing leaks.
 */
export async function tenantGuard(request: FastifyRequest): Promise<void> {
  const principal = principalOf(request);
  if (!principal.orgId) throw forbidden("The access token has no org_id claim");
  const { org_id: pathOrg } = request.params as { org_id?: unknown };
  if (typeof pathOrg !== "string" || pathOrg.toLowerCase() !== principal.orgId.toLowerCase()) {
    throw forbidden("The access token does not grant access to this organization");
  }
}

/** The caller's org (equal to the path's, once `tenantGuard` passed), for repository calls. */
export function tenantOf(request: FastifyRequest): string {
  const orgId = principalOf(request).orgId;
  if (!orgId) throw forbidden("The access token has no org_id claim");
  return orgId.toLowerCase();
}
