import { randomUUID } from "node:crypto";
import type { ClientCredentialsTokenResponse, TokenForm } from "../../../contracts/token.js";
import { verifyPassword } from "../password-hash.js";
import type { Realm } from "../realms.js";
import type { TokenContext } from "../token-context.js";
import { invalidRequest, oauthError } from "../token-errors.js";

/** Keycloak's answer to an unknown client or a wrong secret, the same for both. */
const invalidClient = () => oauthError(401, "invalid_client", "Invalid client or Invalid client credentials");

/** The `preferred_username` Keycloak gives a client's service-account user. */
export const SERVICE_ACCOUNT_USERNAME_PREFIX = "service-account-";

/**
 * The client's id and secret: the form's fields (client_secret_post), or HTTP Basic
 * (client_secret_basic: both parts form-urlencoded, RFC 6749 §2.3.1). The form wins, as in Keycloak.
 */
function clientCredentialsOf(form: TokenForm, authorization: string | undefined): { id?: string; secret?: string } {
  if (form.client_id) return { id: form.client_id, ...(form.client_secret !== undefined ? { secret: form.client_secret } : {}) };
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization ?? "")?.[1];
  if (!basic) return {};
  const decoded = Buffer.from(basic, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  const decode = (part: string) => {
    try {
      return decodeURIComponent(part.replace(/\+/g, " "));
    } catch {
      return part;
    }
  };
  if (colon === -1) return { id: decode(decoded) };
  return { id: decode(decoded.slice(0, colon)), secret: decode(decoded.slice(colon + 1)) };
}

/**
 * grant_type=client_credentials for an organisation's service account (Keycloak's service-account
 * clients): the client authenticates with its secret (argon2id-verified; an unknown client costs the
 * same one verification), and gets an access token only, as Keycloak by default (no refresh token,
 * no session). The token's `sub` is the account's id; it carries the organisation (`org_id`), the
 * APIs' audience and the account's limits in `scope`. A revoked account is refused on its next
 * request; the tokens it holds stay valid until they expire (at most ACCESS_TOKEN_LIFESPAN).
 */
export async function clientCredentialsGrant(
  ctx: TokenContext,
  realm: Realm,
  form: TokenForm,
  authorization: string | undefined,
): Promise<ClientCredentialsTokenResponse> {
  const { id, secret } = clientCredentialsOf(form, authorization);
  if (!id) throw invalidRequest("Missing parameter: client_id");
  if (realm.clients.has(id)) throw oauthError(401, "unauthorized_client", "Public client not allowed to retrieve service account");
  const account = await ctx.serviceAccounts.findByClientId(realm.name, id);
  const matches = await verifyPassword(secret ?? "", account?.secretHash ?? (await ctx.dummyHash()));
  if (!account || !secret || !matches) throw invalidClient();
  if (account.revokedAt) throw oauthError(401, "unauthorized_client", "Client disabled");

  const now = Math.floor(ctx.now() / 1000);
  const exp = now + ctx.config.ACCESS_TOKEN_LIFESPAN;
  const scope = account.scopes.join(" ");
  const accessToken = await ctx.keys.sign({
    exp,
    iat: now,
    jti: randomUUID(),
    iss: realm.issuer,
    aud: [ctx.config.AUTH_AUDIENCE],
    sub: account.id,
    typ: "Bearer",
    azp: account.clientId,
    client_id: account.clientId,
    acr: "1",
    scope,
    preferred_username: `${SERVICE_ACCOUNT_USERNAME_PREFIX}${account.clientId}`,
    org_id: account.orgId,
  });
  await ctx.serviceAccounts.touch(account.id, new Date(ctx.now()));
  return { access_token: accessToken, expires_in: exp - now, refresh_expires_in: 0, token_type: "Bearer", "not-before-policy": 0, scope };
}
