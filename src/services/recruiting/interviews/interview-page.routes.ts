import { Type } from "@sinclair/typebox";
import type { FastifyPluginAsync } from "fastify";
import type { InterviewStatus } from "../../../contracts/recruiting/interviews.js";
import { notFound } from "../../../shared/errors.js";
import type { RecruitingContext } from "../context.js";
import { interviewNotFoundPage, interviewPage, type InterviewPageData } from "./interview-page.js";
import { findInterviewPageRow } from "./token-pages.repository.js";

/** What newInterviewLink issues: 24 random bytes, base64url. Anything else cannot be a link. */
export const TOKEN = /^[A-Za-z0-9_-]{32}$/;

/**
 * A page behind a token link is a bearer secret: never cached, never sent on as a referrer, never
 * indexed, and nothing but inline style runs (the results page has the same).
 */
export const TOKEN_PAGE_HEADERS = {
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
  "x-robots-tag": "noindex",
  "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'",
} as const;

export type InterviewPageOptions = {
  ctx: RecruitingContext;
  /** The API's own base (origin + /interview): links issued before INTERVIEW_BASE_URL was set. */
  ownBase: string;
  /** INTERVIEW_BASE_URL when it names another front end: known links are sent there. */
  redirectBase: string | null;
};

/**
 * GET /interview/{token}: the candidate-facing page behind `interview_link`. The unguessable token
 * is the only key (no session, no ids), the answer is one candidate's, and unknown tokens are a
 * 404, the same as malformed ones: a page for a browser, `{"detail": …}` for anything else.
 */
export const interviewPageRoutes: FastifyPluginAsync<InterviewPageOptions> = async (app, { ctx, ownBase, redirectBase }) => {
  app.get("/interview/:token", { schema: { hide: true, params: Type.Object({ token: Type.String() }) } }, async (request, reply) => {
    const { token } = request.params as { token: string };
    // A candidate's browser gets a page it can read; API clients the API's error shape.
    const nowhere = () => {
      if (!/\btext\/html\b/.test(request.headers.accept ?? "")) throw notFound("No interview at this link");
      return reply.status(404).headers(TOKEN_PAGE_HEADERS).type("text/html; charset=utf-8").send(interviewNotFoundPage());
    };
    if (!TOKEN.test(token)) return nowhere();
    const links = [...new Set([`${ownBase}/${token}`, `${ctx.interviewBaseUrl.replace(/\/+$/, "")}/${token}`])];
    const row = await findInterviewPageRow(ctx.db, links);
    if (!row) return nowhere();
    reply.headers(TOKEN_PAGE_HEADERS);
    if (redirectBase) return reply.redirect(`${redirectBase}/${token}`, 302);
    const data: InterviewPageData = {
      candidateName: row.candidateName,
      status: row.status as InterviewStatus,
      position: {
        name: row.name,
        department: row.department,
        location: row.location,
        roleDescription: row.roleDescription,
        acceptedLanguages: row.acceptedLanguages,
      },
    };
    return reply.type("text/html; charset=utf-8").send(interviewPage(data));
  });
};
