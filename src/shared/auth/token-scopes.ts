import type { FastifyRequest } from "fastify";
import { type AppError, forbidden } from "../errors.js";
import type { Principal } from "./token-claims.js";

/**
 * The limits a token's `scope` may carry (a service account's, docs/token-service.md, Service
 * accounts), enforced where the APIs check tokens: `read` allows only GET and HEAD; `recruiting`
 * keeps the token off the integration proxy. A token naming neither (a person's) is not limited.
 */
export type ApiName = "recruiting" | "proxy";

const READS = new Set(["GET", "HEAD", "OPTIONS"]);

/** Whether the scope names a limit at all: the common case (a person's token) costs this one test per request. */
const LIMITS = /(^| )(read|recruiting)( |$)/;

/** The 403 a limited token gets for this request on `api`, or undefined when it may go on. */
export function scopeRefusal(principal: Principal, method: string, api: ApiName | undefined): AppError | undefined {
  if (!LIMITS.test(principal.scope)) return undefined;
  const words = principal.scope.split(" ");
  if (words.includes("read") && !READS.has(method.toUpperCase())) {
    return forbidden("This token may only read (its scope is 'read'): use a service account without that limit to write");
  }
  if (words.includes("recruiting") && api === "proxy") {
    return forbidden("This token is limited to the recruiting API (its scope is 'recruiting'): the integration proxy refuses it");
  }
  return undefined;
}

/**
 * Whether the caller is a service account rather than a person: Keycloak names a client's
 * service-account user `service-account-{client id}`, and the client is the token's `azp`.
 */
export function isServiceAccount(principal: Principal): boolean {
  const azp = principal.claims["azp"];
  return typeof azp === "string" && principal.username === `service-account-${azp}`;
}

/** Refuses service accounts: for what only people may do (managing service accounts). */
export function requirePerson(request: FastifyRequest): void {
  if (request.principal && isServiceAccount(request.principal)) {
    throw forbidden("A service account cannot manage service accounts: sign in as a person (hirebridge login)");
  }
}
