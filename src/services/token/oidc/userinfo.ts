import type { UserInfo } from "../../../contracts/token.js";
import { profileClaims } from "../grants/issue-tokens.js";
import type { Realm } from "../realms.js";
import type { TokenContext } from "../token-context.js";
import { oauthError } from "../token-errors.js";

const failed = (realm: Realm, description: string) =>
  oauthError(401, "invalid_token", description, {
    "www-authenticate": `Bearer realm="${realm.name}", error="invalid_token", error_description="${description}"`,
  });

/**
 * Userinfo as Keycloak serves it: the access token must verify, be an access token of this realm,
 * and its session must still be live (a logged-out session's tokens get nothing).
 */
export async function userInfo(ctx: TokenContext, realm: Realm, authorization: string | undefined): Promise<UserInfo> {
  const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "")?.[1];
  if (!token) throw failed(realm, "Token not provided");
  const payload = await ctx.keys.verify(token, realm.issuer).catch(() => null);
  if (payload?.["typ"] !== "Bearer" || typeof payload["sid"] !== "string" || typeof payload.sub !== "string") {
    throw failed(realm, "Token verification failed");
  }
  const session = await ctx.sessions.findById(payload["sid"]);
  if (!session || session.endedAt || session.userId !== payload.sub) {
    throw failed(realm, "User session not found or doesn't have client attached on it");
  }
  const user = await ctx.users.findById(realm.name, payload.sub);
  if (!user?.enabled) throw failed(realm, "User not found or disabled");
  return { sub: user.id, ...profileClaims(user) } as UserInfo;
}
