import { randomUUID } from "node:crypto";
import type { TokenResponse } from "../../../contracts/token.js";
import type { Realm } from "../realms.js";
import type { ClaimsUser } from "../storage/token.tables.js";
import type { TokenContext } from "../token-context.js";
import { oauthError } from "../token-errors.js";

/** Keycloak's default client scopes: always granted, whatever the request asks. */
const DEFAULT_SCOPES = ["profile", "email"];
const KNOWN_SCOPES = new Set(["openid", ...DEFAULT_SCOPES]);

/**
 * The scope a login gets: `openid` when asked for (then an ID token is issued too) plus the
 * default scopes. Scopes this realm does not have are refused with invalid_scope, as Keycloak does.
 */
export function grantedScope(requested: string | undefined): string {
  const asked = (requested ?? "").split(" ").filter(Boolean);
  const unknown = asked.filter((s) => !KNOWN_SCOPES.has(s));
  if (unknown.length) throw oauthError(400, "invalid_scope", `Invalid scopes: ${requested}`);
  return [...(asked.includes("openid") ? ["openid"] : []), ...DEFAULT_SCOPES].join(" ");
}

/** The first value of the user's `org_id` attribute: the org_id claim. */
export const orgIdOf = (user: ClaimsUser): string | undefined => user.attributes["org_id"]?.[0];

/** Profile claims shared by the access token, the ID token and userinfo (absent fields left out). */
export function profileClaims(user: ClaimsUser): Record<string, unknown> {
  const name = [user.firstName, user.lastName].filter(Boolean).join(" ");
  const claims: Record<string, unknown> = { email_verified: user.emailVerified, preferred_username: user.username };
  if (name) claims["name"] = name;
  if (user.firstName) claims["given_name"] = user.firstName;
  if (user.lastName) claims["family_name"] = user.lastName;
  if (user.email) claims["email"] = user.email;
  const orgId = orgIdOf(user);
  if (orgId) claims["org_id"] = orgId;
  return claims;
}

export type IssueInput = {
  realm: Realm;
  clientId: string;
  user: ClaimsUser;
  session: { id: string; startedAt: Date; scope: string };
  /** The jti the new refresh token must carry: the session's current refresh token id. */
  refreshJti: string;
  /** The `nonce` of the authorization request, echoed in the ID token (OpenID Connect Core §3.1.2.1). */
  nonce?: string | null | undefined;
};

/**
 * Signs the token set of one grant. Lifetimes follow Keycloak: the refresh token expires after the
 * idle timeout (REFRESH_TOKEN_LIFESPAN, so each refresh slides it), and neither token outlives the
 * session's maximum lifespan.
 */
export async function issueTokens(ctx: TokenContext, input: IssueInput): Promise<TokenResponse> {
  const { config } = ctx;
  const { realm, clientId, user, session } = input;
  const now = Math.floor(ctx.now() / 1000);
  const sessionEnd = Math.floor(session.startedAt.getTime() / 1000) + config.SESSION_MAX_LIFESPAN;
  const accessExp = Math.min(now + config.ACCESS_TOKEN_LIFESPAN, sessionEnd);
  const refreshExp = Math.min(now + config.REFRESH_TOKEN_LIFESPAN, sessionEnd);
  const authTime = Math.floor(session.startedAt.getTime() / 1000);
  const common = { iat: now, iss: realm.issuer, sub: user.id, azp: clientId, sid: session.id };
  const profile = profileClaims(user);
  // Keycloak puts `account` in every access token's `aud`; a client's audience mapper adds the APIs'.
  const audience = realm.clients.get(clientId)?.audience;
  const aud = audience && audience !== "account" ? [audience, "account"] : "account";

  // The refresh token is only ever read back by this service: HS512 under the refresh token key, as
  // Keycloak signs it, a few µs. The access and ID tokens are RS256 for the resource servers and the
  // client; their signatures run on the thread pool side by side.
  const [refreshToken, accessToken, idToken] = await Promise.all([
    ctx.refreshKeys.sign({
      exp: refreshExp,
      ...common,
      jti: input.refreshJti,
      aud: realm.issuer,
      typ: "Refresh",
      scope: session.scope,
    }),
    ctx.keys.sign({
      exp: accessExp,
      ...common,
      jti: randomUUID(),
      aud,
      typ: "Bearer",
      acr: "1",
      scope: session.scope,
      ...profile,
    }),
    session.scope.split(" ").includes("openid")
      ? ctx.keys.sign({
          exp: accessExp,
          ...common,
          auth_time: authTime,
          jti: randomUUID(),
          aud: clientId,
          typ: "ID",
          acr: "1",
          ...(input.nonce ? { nonce: input.nonce } : {}),
          ...profile,
        })
      : undefined,
  ]);
  const response: TokenResponse = {
    access_token: accessToken,
    expires_in: accessExp - now,
    refresh_expires_in: refreshExp - now,
    refresh_token: refreshToken,
    token_type: "Bearer",
    "not-before-policy": 0,
    session_state: session.id,
    scope: session.scope,
  };
  if (idToken) response.id_token = idToken;
  return response;
}

/**
 * Starts a login session (one refresh-token family) for `user` at `clientId`: what the password and
 * authorization-code grants both do before signing the first token set with `issueTokens`.
 */
export async function startSession(
  ctx: TokenContext,
  input: { realm: Realm; clientId: string; user: ClaimsUser; scope: string; startedAt: Date; ssoSessionId?: string | null },
): Promise<Pick<IssueInput, "session" | "refreshJti">> {
  const session = { id: randomUUID(), startedAt: input.startedAt, scope: input.scope };
  const refreshJti = randomUUID();
  await ctx.sessions.insert({
    id: session.id,
    realm: input.realm.name,
    userId: input.user.id,
    clientId: input.clientId,
    scope: input.scope,
    startedAt: input.startedAt,
    lastRefreshAt: new Date(ctx.now()),
    refreshJti,
    ssoSessionId: input.ssoSessionId ?? null,
  });
  return { session, refreshJti };
}
