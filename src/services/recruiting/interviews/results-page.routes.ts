import { Type } from "@sinclair/typebox";
import type { FastifyPluginAsync } from "fastify";
import { notFound } from "../../../shared/errors.js";
import type { RecruitingContext } from "../context.js";
import { TOKEN, TOKEN_PAGE_HEADERS } from "./interview-page.routes.js";
import { resultsNotFoundPage, resultsPage } from "./results-page.js";
import { findResultsPageRow } from "./token-pages.repository.js";

/**
 * GET /assessment-results/{token}: the recruiter's page behind an assessment order's `result_url`
 * (docs/assessments.md). The token (24 random bytes, set when the order became a candidate) is the
 * only key; unknown and malformed tokens are the same 404. The request logger redacts the token
 * (shared/http/redact.ts), and the page carries the interview page's headers.
 */
export const resultsPageRoutes: FastifyPluginAsync<{ ctx: RecruitingContext }> = async (app, { ctx }) => {
  app.get(
    "/assessment-results/:token",
    { schema: { hide: true, params: Type.Object({ token: Type.String() }) } },
    async (request, reply) => {
      const { token } = request.params as { token: string };
      const nowhere = () => {
        if (!/\btext\/html\b/.test(request.headers.accept ?? "")) throw notFound("No results at this link");
        return reply.status(404).headers(TOKEN_PAGE_HEADERS).type("text/html; charset=utf-8").send(resultsNotFoundPage());
      };
      if (!TOKEN.test(token)) return nowhere();
      const row = await findResultsPageRow(ctx.db, token);
      if (!row) return nowhere();
      const page = resultsPage({ ...row, completedAt: row.endTime ?? row.gradedAt });
      return reply.headers(TOKEN_PAGE_HEADERS).type("text/html; charset=utf-8").send(page);
    },
  );
};
