import { Type, type FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { OAuthErrorSchema, TokenFormSchema, TokenResponseSchema, type TokenForm, type TokenResponse } from "../../../contracts/token.js";
import { authorizationCodeGrant } from "../grants/authorization-code-grant.js";
import { passwordGrant } from "../grants/password-grant.js";
import { refreshGrant } from "../grants/refresh-grant.js";
import { resolveClient } from "../grants/resolve-client.js";
import { requireRealm, type Client, type Realm } from "../realms.js";
import type { TokenContext } from "../token-context.js";
import { invalidRequest, oauthError } from "../token-errors.js";

type Grant = (ctx: TokenContext, realm: Realm, client: Client, form: TokenForm) => Promise<TokenResponse>;
const GRANTS: Record<string, Grant> = { password: passwordGrant, refresh_token: refreshGrant, authorization_code: authorizationCodeGrant };

export const RealmParamsSchema = Type.Object({ realm: Type.String() });

/** `POST {auth_url}/protocol/openid-connect/token`: form-encoded, answers a token set or an RFC 6749 error. */
export function tokenRoutes(ctx: TokenContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      "/protocol/openid-connect/token",
      {
        schema: {
          summary: "Token endpoint (password, refresh_token and authorization_code grants)",
          consumes: ["application/x-www-form-urlencoded"],
          params: RealmParamsSchema,
          body: TokenFormSchema,
          response: { 200: TokenResponseSchema, 400: OAuthErrorSchema, 401: OAuthErrorSchema },
        },
      },
      async (request, reply) => {
        // Keycloak's order: the realm, then grant_type, then the client, then the grant itself.
        const realm = requireRealm(ctx.realms, request.params.realm);
        const form = request.body;
        if (!form.grant_type) throw invalidRequest("Missing form parameter: grant_type");
        const grant = Object.hasOwn(GRANTS, form.grant_type) ? GRANTS[form.grant_type] : undefined;
        if (!grant) throw oauthError(400, "unsupported_grant_type", "Unsupported grant_type");
        const client = resolveClient(realm, form.client_id, request.headers.authorization);
        const tokens = await grant(ctx, realm, client, form);
        return reply.header("cache-control", "no-store").header("pragma", "no-cache").send(tokens);
      },
    );
  };
}
