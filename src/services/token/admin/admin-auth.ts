import type { FastifyRequest } from "fastify";
import { ADMIN_USERNAME } from "../realms.js";
import type { TokenContext } from "../token-context.js";
import { KeycloakError } from "../token-errors.js";

const unauthorized = () => new KeycloakError(401, { error: "HTTP 401 Unauthorized" }, { "www-authenticate": 'Bearer realm="master"' });

/**
 * Guards the admin API: a live access token of the `master` realm's `admin` user (password grant
 * through `admin-cli`, as with Keycloak). Any other valid master-realm user is 403.
 */
export function adminAuth(ctx: TokenContext) {
  return async function requireAdmin(request: FastifyRequest): Promise<void> {
    const token = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? "")?.[1];
    if (!token) throw unauthorized();
    const payload = await ctx.keys.verify(token, ctx.realms.master.issuer).catch(() => null);
    const sid = payload?.["sid"];
    if (payload?.["typ"] !== "Bearer" || typeof sid !== "string" || typeof payload.sub !== "string") throw unauthorized();
    const session = await ctx.sessions.findById(sid);
    if (!session || session.endedAt || session.userId !== payload.sub) throw unauthorized();
    const user = await ctx.users.findById(ctx.realms.master.name, payload.sub);
    if (!user?.enabled) throw unauthorized();
    if (user.username !== ADMIN_USERNAME) throw new KeycloakError(403, { error: "HTTP 403 Forbidden" });
  };
}
