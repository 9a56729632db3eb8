import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { OrgIdResponseSchema } from "../../../contracts/recruiting/org.js";
import { errorResponses } from "../../../contracts/recruiting/fields.js";
import { principalOf } from "../../../shared/auth/bearer.plugin.js";
import { forbidden } from "../../../shared/errors.js";

/** GET /org_id: the caller's organization, from the token. */
export const orgRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    "/org_id",
    {
      schema: {
        tags: ["organization"],
        summary: "The caller's organization id",
        description:
          "The `org_id` claim of the access token: the `{org_id}` every other path of this API takes. 403 when the token carries none.",
        security: [{ bearer: [] }],
        response: { 200: OrgIdResponseSchema, 401: errorResponses[401], 403: errorResponses[403] },
      },
    },
    async (request) => {
      const orgId = principalOf(request).orgId;
      if (!orgId) throw forbidden("The access token has no org_id claim");
      return { org_id: orgId };
    },
  );
};
