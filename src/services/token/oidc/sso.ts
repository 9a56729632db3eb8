import { randomBytes, randomUUID } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Realm } from "../realms.js";
import type { SsoSessionRow, UserRow } from "../storage/token.tables.js";
import type { TokenContext } from "../token-context.js";
import { cookieOf, IDENTITY_COOKIE, setCookie } from "./browser-cookies.js";

/**
 * The browser's SSO session, as Keycloak keeps it: a sign-in on the login page starts one and sets
 * an HttpOnly cookie with its secret; while it lives, the authorization endpoint signs the browser
 * in without the login page (a reload, a new tab, `prompt=none`). It goes idle after
 * REFRESH_TOKEN_LIFESPAN unused (a refresh of a token session it started counts as use), ends after
 * SESSION_MAX_LIFESPAN, and ends with a logout of any token session it started, the user's
 * disabling, a password change and an admin's logout of the user.
 */
export async function startSso(
  ctx: TokenContext,
  request: FastifyRequest,
  reply: FastifyReply,
  realm: Realm,
  userId: string,
): Promise<Pick<SsoSessionRow, "id" | "startedAt">> {
  const secret = randomBytes(32).toString("base64url");
  const now = new Date(ctx.now());
  const sso = { id: randomUUID(), realm: realm.name, userId, startedAt: now, lastUsedAt: now, secret };
  await ctx.sso.insert(sso);
  setCookie(reply, request, realm, IDENTITY_COOKIE, secret);
  return sso;
}

/**
 * The live SSO session of the browser's cookie and its user (enabled, with no temporary password
 * to change first); null when there is none, and then a stale cookie is cleared.
 */
export async function browserSso(
  ctx: TokenContext,
  request: FastifyRequest,
  reply: FastifyReply,
  realm: Realm,
): Promise<{ sso: SsoSessionRow; user: UserRow } | null> {
  const secret = cookieOf(request, IDENTITY_COOKIE);
  if (!secret) return null;
  const now = ctx.now();
  const sso = await ctx.sso.findLive({
    realm: realm.name,
    secret,
    idleBefore: new Date(now - ctx.config.REFRESH_TOKEN_LIFESPAN * 1000),
    startedBefore: new Date(now - ctx.config.SESSION_MAX_LIFESPAN * 1000),
  });
  const user = sso ? await ctx.users.findById(realm.name, sso.userId) : null;
  if (!sso || !user?.enabled || user.passwordTemporary) {
    setCookie(reply, request, realm, IDENTITY_COOKIE, null);
    return null;
  }
  await ctx.sso.touch(sso.id, new Date(now));
  return { sso, user };
}
