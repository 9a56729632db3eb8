import { randomUUID } from "node:crypto";
import type { TokenForm, TokenResponse } from "../../../contracts/token.js";
import { authenticate } from "../authenticate.js";
import type { Client, Realm } from "../realms.js";
import type { TokenContext } from "../token-context.js";
import { invalidRequest, oauthError } from "../token-errors.js";
import { grantedScope, issueTokens } from "./issue-tokens.js";

/**
 * grant_type=password (Keycloak's "direct access grant"): checks the credentials, starts a
 * session whose first refresh token is the one returned, and signs the token set.
 */
export async function passwordGrant(ctx: TokenContext, realm: Realm, client: Client, form: TokenForm): Promise<TokenResponse> {
  if (!client.directAccessGrants) {
    throw oauthError(400, "unauthorized_client", "Client not allowed for direct access grants");
  }
  if (!form.username) throw invalidRequest("Missing parameter: username");
  if (form.password === undefined || form.password === "") throw invalidRequest("Missing parameter: password");
  const scope = grantedScope(form.scope);
  const user = await authenticate(ctx, realm, form.username, form.password);

  const now = new Date(ctx.now());
  const session = { id: randomUUID(), startedAt: now, scope };
  const refreshJti = randomUUID();
  await ctx.sessions.insert({
    id: session.id,
    realm: realm.name,
    userId: user.id,
    clientId: client.clientId,
    scope,
    startedAt: now,
    lastRefreshAt: now,
    refreshJti,
  });
  return issueTokens(ctx, { realm, clientId: client.clientId, user, session, refreshJti });
}
