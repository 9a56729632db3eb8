import type { KeyRotationResult } from "../../contracts/token.js";
import type { TokenContext } from "./token-context.js";

/** Ended sessions are kept this long so a replayed token still gets the precise Keycloak message. */
const KEEP_ENDED_MS = 24 * 60 * 60 * 1000;

/**
 * Removes what can never be used again: sessions (and browser SSO sessions) past their idle or maximum lifespan or ended a
 * day ago, retired signing and refresh token keys whose tokens have all expired, and authorization codes. Run periodically by the service.
 */
export async function purgeExpired(ctx: TokenContext): Promise<{ sessions: number; keys: number }> {
  const now = ctx.now();
  const dead = [
    new Date(now - KEEP_ENDED_MS),
    new Date(now - ctx.config.REFRESH_TOKEN_LIFESPAN * 1000 - KEEP_ENDED_MS),
    new Date(now - ctx.config.SESSION_MAX_LIFESPAN * 1000 - KEEP_ENDED_MS),
  ] as const;
  const sessions = await ctx.sessions.deleteDead(...dead);
  await ctx.sso.deleteDead(...dead);
  const keys = (await ctx.keys.deleteExpired()) + (await ctx.refreshKeys.deleteExpired());
  // Spent or expired authorization codes, kept as long as ended sessions so a replay still ends its session.
  await ctx.codes.deleteExpired(new Date(now - KEEP_ENDED_MS));
  return { sessions, keys };
}

/** A new signing key and a new refresh token key; the ones they replace verify until their tokens expire. */
export async function rotateKeys(ctx: TokenContext): Promise<KeyRotationResult> {
  const signing = await ctx.keys.rotate();
  return { ...signing, refresh_token_key: await ctx.refreshKeys.rotate() };
}
