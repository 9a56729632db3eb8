import { Type, type FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { AdminErrorSchema, KeyRotationResultSchema } from "../../../contracts/token.js";
import { rotateKeys } from "../maintenance.js";
import { requireRealm } from "../realms.js";
import type { TokenContext } from "../token-context.js";

/**
 * Hirebridge-specific (Keycloak rotates keys through its components API): makes a new signing key
 * and a new refresh token (HMAC) key active now. Old signing keys stay in the JWKS, and old HMAC keys
 * keep verifying, until every token they signed has expired. The keys are shared by the realms of
 * this service, so rotating through either realm rotates both.
 */
export function keysRoutes(ctx: TokenContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      "/hirebridge/keys/rotate",
      {
        schema: {
          summary: "Rotate the signing key and the refresh token key",
          params: Type.Object({ realm: Type.String() }),
          response: { 200: KeyRotationResultSchema, 401: AdminErrorSchema, 403: AdminErrorSchema, 404: AdminErrorSchema },
        },
      },
      async (request) => {
        requireRealm(ctx.realms, request.params.realm);
        const result = await rotateKeys(ctx);
        // Kids only: the HMAC secret itself never reaches a log.
        request.log.info({ kid: result.kid, retired: result.retired, refreshTokenKey: result.refresh_token_key }, "signing keys rotated");
        return result;
      },
    );
  };
}
