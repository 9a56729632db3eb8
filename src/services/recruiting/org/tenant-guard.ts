import type { FastifyReply, FastifyRequest } from "fastify";
import { principalOf } from "../../../shared/auth/bearer.plugin.js";
import { forbidden, unauthorized } from "../../../shared/errors.js";

/**
 * onRequest hook of every `/org/{org_id}/...` route, after the bearer check and before anything
 * reads the database or the body: only a token whose org_id claim equals the path's may continue.
 * The answer is the same 403 whether or not the org or the record exists, so nothing leaks.
 * Callback style: it runs on every org request and never waits for anything.
 */
export function tenantGuard(request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void): void {
  done(tenantRefusal(request));
}

function tenantRefusal(request: FastifyRequest): Error | undefined {
  if (!request.principal) return unauthorized();
  const orgId = request.principal.orgId;
  if (!orgId) return forbidden("The access token has no org_id claim");
  const { org_id: pathOrg } = request.params as { org_id?: unknown };
  if (typeof pathOrg !== "string" || (pathOrg !== orgId && pathOrg.toLowerCase() !== orgId.toLowerCase())) {
    return forbidden("The access token does not grant access to this organization");
  }
  return undefined;
}

/** The caller's org (equal to the path's, once `tenantGuard` passed), for repository calls. */
export function tenantOf(request: FastifyRequest): string {
  const orgId = principalOf(request).orgId;
  if (!orgId) throw forbidden("The access token has no org_id claim");
  return orgId.toLowerCase();
}
