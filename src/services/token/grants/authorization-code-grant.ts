import type { TokenForm, TokenResponse } from "../../../contracts/token.js";
import type { Client, Realm } from "../realms.js";
import type { TokenContext } from "../token-context.js";
import { invalidGrant, invalidRequest, oauthError } from "../token-errors.js";
import { issueTokens, startSession } from "./issue-tokens.js";
import { isPkceVerifier, s256Matches } from "./pkce.js";

/**
 * grant_type=authorization_code, the browser sign-in's second half (Keycloak's
 * AuthorizationCodeGrantType): the code is spent first, so every later failure burns it too; a code
 * presented again ends the session its first exchange started. Then the client, the exact redirect
 * URI, the user, and PKCE (S256, required) are checked, in Keycloak's order and words. The session
 * it starts is the same kind the password grant starts: its refresh tokens rotate the same way.
 */
export async function authorizationCodeGrant(ctx: TokenContext, realm: Realm, client: Client, form: TokenForm): Promise<TokenResponse> {
  if (!client.standardFlow) throw oauthError(400, "unauthorized_client", "Client not allowed to exchange code");
  if (!form.code) throw invalidRequest("Missing parameter: code");
  const now = new Date(ctx.now());
  const spent = await ctx.codes.spend(form.code, now);
  if ("spent" in spent) {
    if (spent.spent?.sessionId && (await ctx.sessions.end(spent.spent.sessionId, "code_reuse", now))) {
      ctx.logger.warn({ realm: realm.name, sid: spent.spent.sessionId }, "authorization code used twice: its session ended");
    }
    throw invalidGrant("Code not valid");
  }
  const code = spent.row;
  if (code.realm !== realm.name || code.expiresAt.getTime() <= now.getTime()) throw invalidGrant("Code not valid");
  if (code.clientId !== client.clientId) throw invalidGrant("Auth error");
  if (form.redirect_uri !== code.redirectUri) throw invalidGrant("Incorrect redirect_uri");
  const user = await ctx.users.findById(realm.name, code.userId);
  if (!user) throw invalidGrant("User not found");
  if (!user.enabled) throw invalidGrant("User disabled");
  if (!form.code_verifier) throw invalidGrant("PKCE code verifier not specified");
  if (!isPkceVerifier(form.code_verifier)) throw invalidGrant("PKCE verification failed: Invalid code verifier");
  if (!s256Matches(form.code_verifier, code.codeChallenge)) throw invalidGrant("PKCE verification failed: Code mismatch");

  const started = await startSession(ctx, {
    realm,
    clientId: client.clientId,
    user,
    scope: code.scope,
    // From the sign-in: a silent one's is the SSO session's, so SESSION_MAX_LIFESPAN bounds them all.
    startedAt: code.authTime,
    ssoSessionId: code.ssoSessionId,
  });
  await ctx.codes.attachSession(form.code, started.session.id);
  return issueTokens(ctx, { realm, clientId: client.clientId, user, ...started, nonce: code.nonce });
}
