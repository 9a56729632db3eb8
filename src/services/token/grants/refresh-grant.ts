import { randomUUID } from "node:crypto";
import type { TokenForm, TokenResponse } from "../../../contracts/token.js";
import type { Client, Realm } from "../realms.js";
import type { TokenContext } from "../token-context.js";
import { invalidGrant, invalidRequest } from "../token-errors.js";
import { issueTokens } from "./issue-tokens.js";
import { liveSession, verifyRefreshToken } from "./refresh-token.js";

/**
 * grant_type=refresh_token with rotation and one-time use (Keycloak with "Revoke refresh token"
 * on and max reuse 0). The presented token is swapped for a new one by one compare-and-set
 * statement that also checks the session is live and its user enabled and returns the user for the
 * claims: a refresh that succeeds costs that one round trip and two signatures. If the swap fails,
 * the session is read to say why; when it is live, the presented token was already spent, by an
 * earlier or a concurrent refresh, and the whole session ends so the token that replaced it dies
 * too. The thief and the owner both have to log in again, which is the point.
 */
export async function refreshGrant(ctx: TokenContext, realm: Realm, client: Client, form: TokenForm): Promise<TokenResponse> {
  if (!form.refresh_token) throw invalidRequest("No refresh token");
  const claims = await verifyRefreshToken(ctx, realm, client, form.refresh_token);
  const nextJti = randomUUID();
  const now = ctx.now();
  const rotated = await ctx.sessions.rotateLive({
    sid: claims.sid,
    realm: realm.name,
    userId: claims.sub,
    presentedJti: claims.jti,
    nextJti,
    now: new Date(now),
    idleBefore: new Date(now - ctx.config.REFRESH_TOKEN_LIFESPAN * 1000),
    startedBefore: new Date(now - ctx.config.SESSION_MAX_LIFESPAN * 1000),
  });
  if (rotated)
    return issueTokens(ctx, { realm, clientId: client.clientId, user: rotated.user, session: rotated.session, refreshJti: nextJti });

  // Not rotated: say why, with Keycloak's messages.
  const session = await liveSession(ctx, realm, claims);
  const user = await ctx.users.findById(realm.name, session.userId);
  if (!user) throw invalidGrant("Session not active");
  if (!user.enabled) throw invalidGrant("User disabled");
  // Live session, enabled user: the presented token is not (or no longer) the session's current one.
  if (session.refreshJti === claims.jti) throw invalidGrant("Session not active"); // changed under us meanwhile; never a reuse
  if (await ctx.sessions.end(session.id, "reuse", new Date(ctx.now()))) {
    ctx.logger.warn({ realm: realm.name, sid: session.id, userId: user.id }, "refresh token reused: session ended");
  } else {
    // Ended meanwhile, by a concurrent refresh that saw this reuse first, or by a logout.
    const current = await ctx.sessions.findById(session.id);
    throw invalidGrant(current?.endedReason === "reuse" ? "Session doesn't have required client" : "Session not active");
  }
  // Keycloak's words: the token just spent is "reuse exceeded", an older one is "stale".
  throw invalidGrant(session.previousJti === claims.jti ? "Maximum allowed refresh token reuse exceeded" : "Stale token");
}
