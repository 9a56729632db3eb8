import { Type, type FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { AdminErrorSchema, KeyRotationResultSchema } from "../../../contracts/token.js";
import { requireRealm } from "../realms.js";
import type { TokenContext } from "../token-context.js";

/**
 * Hirebridge-specific (Keycloak rotates keys through its components API): makes a new signing key
 * active now. Old keys stay in the JWKS until every token they signed has expired. The key set is
 * shared by the realms of this service, so rotating through either realm rotates both.
 */
export function keysRoutes(ctx: TokenContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      "/hirebridge/keys/rotate",
      {
        schema: {
          summary: "Rotate the signing key",
          params: Type.Object({ realm: Type.String() }),
          response: { 200: KeyRotationResultSchema, 401: AdminErrorSchema, 403: AdminErrorSchema, 404: AdminErrorSchema },
        },
      },
      async (request) => {
        requireRealm(ctx.realms, request.params.realm);
        const result = await ctx.keys.rotate();
        request.log.info({ kid: result.kid, retired: result.retired }, "signing key rotated");
        return result;
      },
    );
  };
}
