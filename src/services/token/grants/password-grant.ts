import type { TokenForm, TokenResponse } from "../../../contracts/token.js";
import { authenticate } from "../authenticate.js";
import type { Client, Realm } from "../realms.js";
import type { TokenContext } from "../token-context.js";
import { invalidRequest, oauthError } from "../token-errors.js";
import { grantedScope, issueTokens, startSession } from "./issue-tokens.js";

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

  const started = await startSession(ctx, { realm, clientId: client.clientId, user, scope, startedAt: new Date(ctx.now()) });
  return issueTokens(ctx, { realm, clientId: client.clientId, user, ...started });
}
