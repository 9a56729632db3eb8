import type { FastifyReply, FastifyRequest } from "fastify";
import type { Realm } from "../realms.js";

/** Binds a login form to the browser that opened it (login CSRF): Keycloak's AUTH_SESSION_ID. */
export const AUTH_SESSION_COOKIE = "HIREBRIDGE_AUTH_SESSION";
/** The browser's SSO session: Keycloak's KEYCLOAK_IDENTITY. */
export const IDENTITY_COOKIE = "HIREBRIDGE_IDENTITY";

export function cookieOf(request: FastifyRequest, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? "").split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k === name) return v.join("=");
  }
  return undefined;
}

/**
 * Sets (or, with `value` null, clears) one of the token service's cookies: scoped to the realm's
 * paths, never readable by scripts, sent on top-level navigations from other sites (SameSite=Lax:
 * a page's redirect to the authorization endpoint) but not on their subrequests, and Secure
 * whenever the service is reached over HTTPS (its issuer, or the request behind a trusted proxy).
 * Without Max-Age the cookie lasts as long as the browser session, as Keycloak's identity cookie
 * does without "remember me".
 */
export function setCookie(
  reply: FastifyReply,
  request: FastifyRequest,
  realm: Realm,
  name: string,
  value: string | null,
  maxAgeSeconds?: number,
): void {
  const secure = request.protocol === "https" || realm.issuer.startsWith("https:");
  const parts = [`${name}=${value ?? ""}`, `Path=/realms/${realm.name}/`, "HttpOnly", "SameSite=Lax"];
  if (secure) parts.push("Secure");
  if (value === null) parts.push("Max-Age=0");
  else if (maxAgeSeconds !== undefined) parts.push(`Max-Age=${maxAgeSeconds}`);
  reply.header("set-cookie", [...[reply.getHeader("set-cookie") ?? []].flat().map(String), parts.join("; ")]);
}
