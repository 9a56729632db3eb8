import { Type, type FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import {
  OAuthErrorSchema,
  TokenEndpointResponseSchema,
  TokenFormSchema,
  type TokenForm,
  type TokenResponse,
} from "../../../contracts/token.js";
import { authorizationCodeGrant } from "../grants/authorization-code-grant.js";
import { clientCredentialsGrant } from "../grants/client-credentials-grant.js";
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
          summary: "Token endpoint (password, refresh_token, authorization_code and client_credentials grants)",
          consumes: ["application/x-www-form-urlencoded"],
          params: RealmParamsSchema,
          body: TokenFormSchema,
          response: { 200: TokenEndpointResponseSchema, 400: OAuthErrorSchema, 401: OAuthErrorSchema },
        },
      },
      async (request, reply) => {
        // Keycloak's order: the realm, then grant_type, then the client, then the grant itself.
        const realm = requireRealm(ctx.realms, request.params.realm);
        const form = request.body;
        if (!form.grant_type) throw invalidRequest("Missing form parameter: grant_type");
        if (form.grant_type === "client_credentials") {
          // A service account: the client is one of the organisations' confidential clients, found in storage.
          const tokens = await clientCredentialsGrant(ctx, realm, form, request.headers.authorization);
          return reply.header("cache-control", "no-store").header("pragma", "no-cache").send(tokens);
        }
        const grant = Object.hasOwn(GRANTS, form.grant_type) ? GRANTS[form.grant_type] : undefined;
        if (!grant) throw oauthError(400, "unsupported_grant_type", "Unsupported grant_type");
        const client = resolveClient(realm, form.client_id, request.headers.authorization);
        const tokens = await grant(ctx, realm, client, form);
        return reply.header("cache-control", "no-store").header("pragma", "no-cache").send(tokens);
      },
    );
  };
}
