import { errors as joseErrors, type JWTPayload } from "jose";
import { parseJws } from "../compact-jws.js";
import type { Client, Realm } from "../realms.js";
import { REFRESH_TOKEN_ALG } from "../refresh-token-keys.js";
import { SIGNING_ALG } from "../signing-keys.js";
import type { SessionRow } from "../storage/token.tables.js";
import type { TokenContext } from "../token-context.js";
import { invalidGrant } from "../token-errors.js";

export type RefreshClaims = { jti: string; sid: string; sub: string };

/**
 * Checks a refresh token as Keycloak's TokenManager does, in the same order and with the same
 * messages: signature and issuer, expiry ("Token is not active"), type, client binding.
 */
export async function verifyRefreshToken(ctx: TokenContext, realm: Realm, client: Client, token: string): Promise<RefreshClaims> {
  const payload = await verifiedPayload(ctx, realm, token);
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
 * The claims of a refresh token whose signature and issuer hold and which has not expired.
 * Refresh tokens are HS512 under the refresh token keys. RS256 ones, signed with the published RSA
 * key by the previous release, are still taken until they expire (REFRESH_TOKEN_LIFESPAN): a rolling
 * deploy must not log everyone out. Each algorithm is checked only with its own kind of key, so a
 * header cannot make a public key serve as an HMAC secret.
 */
async function verifiedPayload(ctx: TokenContext, realm: Realm, token: string): Promise<JWTPayload> {
  const jws = parseJws(token);
  if (jws?.header["alg"] === SIGNING_ALG) {
    try {
      return await ctx.keys.verify(token, realm.issuer);
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired) throw invalidGrant("Token is not active");
      throw invalidGrant("Invalid refresh token");
    }
  }
  if (jws?.header["alg"] !== REFRESH_TOKEN_ALG || !(await ctx.refreshKeys.hasValidSignature(jws)))
    throw invalidGrant("Invalid refresh token");
  // The checks jose's jwtVerify makes for the RS256 path, in its order: issuer, then expiry (no leeway:
  // the service reads its own clock). Every token we sign has a numeric `exp`.
  const { payload } = jws;
  if (payload["iss"] !== realm.issuer || typeof payload["exp"] !== "number") throw invalidGrant("Invalid refresh token");
  if (payload["exp"] <= Math.floor(ctx.now() / 1000)) throw invalidGrant("Token is not active");
  return payload;
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
