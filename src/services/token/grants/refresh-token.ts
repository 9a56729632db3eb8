import { errors as joseErrors } from "jose";
import type { Client, Realm } from "../realms.js";
import type { SessionRow } from "../storage/token.tables.js";
import type { TokenContext } from "../token-context.js";
import { invalidGrant } from "../token-errors.js";

export type RefreshClaims = { jti: string; sid: string; sub: string };

/**
 * Checks a refresh token as Keycloak's TokenManager does, in the same order and with the same
 * messages: signature and issuer, expiry ("Token is not active"), type, client binding.
 */
export async function verifyRefreshToken(ctx: TokenContext, realm: Realm, client: Client, token: string): Promise<RefreshClaims> {
  let payload;
  try {
    payload = await ctx.keys.verify(token, realm.issuer);
  } catch (err) {
    if (err instanceof joseErrors.JWTExpired) throw invalidGrant("Token is not active");
    throw invalidGrant("Invalid refresh token");
  }
  const { jti, sid, sub } = payload;
  if (payload["typ"] !== "Refresh" || typeof jti !== "string" || typeof sid !== "string" || typeof sub !== "string") {
    throw invalidGrant("Invalid refresh token");
  }
  if (payload["azp"] !== client.clientId) {
    throw invalidGrant("Invalid refresh token. Token client and authorized client don't match");
  }
  return { jti, sid, sub };
}

/**
 * The session a refresh token belongs to, if it can still be used. A session ended by token reuse
 * answers "Session doesn't have required client" (Keycloak detaches the client from the session);
 * logged out, deleted, idle or past its maximum lifespan answers "Session not active".
 */
export async function liveSession(ctx: TokenContext, realm: Realm, claims: RefreshClaims): Promise<SessionRow> {
  const session = await ctx.sessions.findById(claims.sid);
  if (!session || session.realm !== realm.name || session.userId !== claims.sub) throw invalidGrant("Session not active");
  if (session.endedAt) {
    throw invalidGrant(session.endedReason === "reuse" ? "Session doesn't have required client" : "Session not active");
  }
  const now = ctx.now();
  const idleEnd = session.lastRefreshAt.getTime() + ctx.config.REFRESH_TOKEN_LIFESPAN * 1000;
  const maxEnd = session.startedAt.getTime() + ctx.config.SESSION_MAX_LIFESPAN * 1000;
  if (now >= idleEnd || now >= maxEnd) throw invalidGrant("Session not active");
  return session;
}
