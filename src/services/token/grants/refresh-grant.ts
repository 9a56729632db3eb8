import { randomUUID } from "node:crypto";
import type { TokenForm, TokenResponse } from "../../../contracts/token.js";
import type { Client, Realm } from "../realms.js";
import type { TokenContext } from "../token-context.js";
import { invalidGrant, invalidRequest } from "../token-errors.js";
import { issueTokens } from "./issue-tokens.js";
import { liveSession, verifyRefreshToken } from "./refresh-token.js";

/**
 * grant_type=refresh_token with rotation and one-time use (Keycloak with "Revoke refresh token"
 * on and max reuse 0). The presented token is swapped for a new one by compare-and-set in the
 * database; if that fails the token was already spent, by an earlier or a concurrent refresh, and
 * the whole session ends so the token that replaced it dies too. The thief and the owner both have
 * to log in again, which is the point.
 */
export async function refreshGrant(ctx: TokenContext, realm: Realm, client: Client, form: TokenForm): Promise<TokenResponse> {
  if (!form.refresh_token) throw invalidRequest("No refresh token");
  const claims = await verifyRefreshToken(ctx, realm, client, form.refresh_token);
  const session = await liveSession(ctx, realm, claims);
  const user = await ctx.users.findById(realm.name, session.userId);
  if (!user) throw invalidGrant("Session not active");
  if (!user.enabled) throw invalidGrant("User disabled");

  const nextJti = randomUUID();
  const rotated = await ctx.sessions.rotate(session.id, claims.jti, nextJti, new Date(ctx.now()));
  if (!rotated) {
    const current = await ctx.sessions.findById(session.id);
    if (!current || current.endedAt) {
      throw invalidGrant(current?.endedReason === "reuse" ? "Session doesn't have required client" : "Session not active");
    }
    await ctx.sessions.end(session.id, "reuse", new Date(ctx.now()));
    ctx.logger.warn({ realm: realm.name, sid: session.id, userId: user.id }, "refresh token reused: session ended");
    // Keycloak's words: the token just spent is "reuse exceeded", an older one is "stale".
    throw invalidGrant(
      current.previousJti === claims.jti ? "Maximum allowed refresh token reuse exceeded" : "Stale token",
    );
  }
  return issueTokens(ctx, {
    realm,
    clientId: client.clientId,
    user,
    session: { id: rotated.id, startedAt: rotated.startedAt, scope: rotated.scope },
    refreshJti: nextJti,
  });
}
