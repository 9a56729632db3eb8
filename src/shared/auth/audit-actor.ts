import type { FastifyRequest } from "fastify";
import type { AuditActor } from "../ports/audit-log.js";
import { principalOf } from "./bearer.plugin.js";

/** The client a token was issued to: Keycloak's `azp`, or RFC 9068's `client_id`. */
const clientOf = (claims: Record<string, unknown>): string | null => {
  const v = claims["azp"] ?? claims["client_id"];
  return typeof v === "string" && v.length > 0 ? v : null;
};

/** Who makes this request's changes, for the audit log: the token's `sub` and client, the request id and address. */
export function auditActorOf(request: FastifyRequest): AuditActor {
  const principal = principalOf(request);
  return { sub: principal.sub, clientId: clientOf(principal.claims), requestId: request.id, sourceAddress: request.ip ?? null };
}

/** A scheduled job's actor (`system:<job>`), outside any request. */
export const systemActor = (job: string): AuditActor => ({ sub: `system:${job}`, clientId: null, requestId: null, sourceAddress: null });
