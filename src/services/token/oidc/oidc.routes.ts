import { Type, type FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { DiscoverySchema, JwksSchema, type Jwks, LogoutFormSchema, OAuthErrorSchema, UserInfoSchema } from "../../../contracts/token.js";
import { liveSession, verifyRefreshToken } from "../grants/refresh-token.js";
import { resolveClient } from "../grants/resolve-client.js";
import { requireRealm, type Realm } from "../realms.js";
import type { TokenContext } from "../token-context.js";
import { invalidRequest } from "../token-errors.js";
import { RealmParamsSchema } from "./token.routes.js";
import { userInfo } from "./userinfo.js";

function discovery(realm: Realm, alg: string) {
  const oidc = `${realm.issuer}/protocol/openid-connect`;
  return {
    issuer: realm.issuer,
    authorization_endpoint: `${oidc}/auth`,
    token_endpoint: `${oidc}/token`,
    userinfo_endpoint: `${oidc}/userinfo`,
    end_session_endpoint: `${oidc}/logout`,
    jwks_uri: `${oidc}/certs`,
    grant_types_supported: ["authorization_code", "client_credentials", "password", "refresh_token"],
    response_types_supported: ["code", "none"],
    response_modes_supported: ["query"],
    prompt_values_supported: ["none", "login"],
    code_challenge_methods_supported: ["S256"],
    authorization_response_iss_parameter_supported: true,
    subject_types_supported: ["public"],
    id_token_signing_alg_values_supported: [alg],
    userinfo_signing_alg_values_supported: ["none"],
    token_endpoint_auth_methods_supported: ["none", "client_secret_basic", "client_secret_post"],
    scopes_supported: ["openid", "profile", "email"],
    claims_supported: [
      "sub",
      "iss",
      "aud",
      "exp",
      "iat",
      "preferred_username",
      "email",
      "email_verified",
      "name",
      "given_name",
      "family_name",
      "org_id",
    ],
    backchannel_logout_supported: false,
  };
}

/** Discovery, JWKS, userinfo and logout under `{auth_url}`. */
export function oidcRoutes(ctx: TokenContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      "/.well-known/openid-configuration",
      { schema: { summary: "OpenID Connect discovery", params: RealmParamsSchema, response: { 200: DiscoverySchema } } },
      async (request) => discovery(requireRealm(ctx.realms, request.params.realm), ctx.keys.alg),
    );

    app.get(
      "/protocol/openid-connect/certs",
      { schema: { summary: "JSON Web Key Set", params: RealmParamsSchema, response: { 200: JwksSchema } } },
      async (request, reply) => {
        requireRealm(ctx.realms, request.params.realm);
        // Short caching: verifiers refetch on an unknown kid anyway, and rotation must show up soon.
        return reply.header("cache-control", "max-age=60").send((await ctx.keys.jwks()) as Jwks);
      },
    );

    for (const method of ["GET", "POST"] as const) {
      app.route({
        method,
        url: "/protocol/openid-connect/userinfo",
        schema: { summary: "Userinfo", params: RealmParamsSchema, response: { 200: UserInfoSchema, 401: OAuthErrorSchema } },
        handler: async (request) => userInfo(ctx, requireRealm(ctx.realms, request.params.realm), request.headers.authorization),
      });
    }

    app.post(
      "/protocol/openid-connect/logout",
      {
        schema: {
          summary: "Back-channel logout: ends the session of a refresh token (and the browser SSO session that started it)",
          consumes: ["application/x-www-form-urlencoded"],
          params: RealmParamsSchema,
          body: LogoutFormSchema,
          response: { 204: Type.Unsafe<undefined>({ description: "Session ended" }), 400: OAuthErrorSchema, 401: OAuthErrorSchema },
        },
      },
      async (request, reply) => {
        const realm = requireRealm(ctx.realms, request.params.realm);
        const client = resolveClient(realm, request.body.client_id, request.headers.authorization);
        if (!request.body.refresh_token) throw invalidRequest("No refresh token");
        const claims = await verifyRefreshToken(ctx, realm, client, request.body.refresh_token);
        const session = await liveSession(ctx, realm, claims);
        const now = new Date(ctx.now());
        await ctx.sessions.end(session.id, "logout", now);
        // A session the browser's SSO session started: signing out ends the SSO session too (and the
        // other tabs' sessions it started), so the next page load finds no one signed in.
        if (session.ssoSessionId) await ctx.sso.end(session.ssoSessionId, "logout", now);
        return reply.status(204).send();
      },
    );
  };
}
