import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import {
  CandidateBulkUpdateSchema,
  CandidateCreateSchema,
  CandidateListSchema,
  CandidateSchema,
  CandidateUpdateSchema,
} from "../../../contracts/recruiting/candidates.js";
import { IdempotencyKeyHeadersSchema, responses } from "../../../contracts/recruiting/fields.js";
import { CandidateParamsSchema, PositionParamsSchema } from "../../../contracts/recruiting/org.js";
import { notFound } from "../../../shared/errors.js";
import { auditedOf, recordAuditAfter } from "../audit-trail.js";
import type { RecruitingContext } from "../context.js";
import { sendJsonText } from "../http/raw-json.js";
import { tenantOf } from "../org/tenant-guard.js";
import { applicationLinkLocs, checkApplicationLinks } from "../upstream/upstream-links.js";
import { findCandidate, toCandidate } from "./candidates.repository.js";
import { bulkUpdateCandidates, candidateCreated, createCandidate, createCandidateIn, updateCandidate } from "./candidates.service.js";

const common = { tags: ["candidates"], security: [{ bearer: [] }] };

/** The app a Typebox plugin is given. */
type RouteApp = Parameters<FastifyPluginAsyncTypebox>[0];

/** A position's candidates: list and create. */
function registerPositionCandidates(app: RouteApp, ctx: RecruitingContext): void {
  app.get(
    "/org/:org_id/positions/:position_id/",
    {
      schema: {
        ...common,
        summary: "List the candidates of a position",
        description: "Every candidate of the position, oldest first.",
        params: PositionParamsSchema,
        response: responses(CandidateListSchema, 401, 403, 404, 422),
      },
    },
    async (request, reply) => {
      // One round trip; the answer's bytes as built by the database (or kept at the current version): no re-serialization.
      const body = await ctx.candidateLists.answer(ctx.db, tenantOf(request), request.params.position_id, (err) =>
        request.log.warn({ err }, "folding the candidate list's changes failed"),
      );
      if (body === null) throw notFound("Position not found");
      return sendJsonText(reply, body);
    },
  );
  app.post(
    "/org/:org_id/positions/:position_id/",
    {
      schema: {
        ...common,
        summary: "Create a candidate",
        description: "Creates the candidate and its interview record (status not_started, with an interview link).",
        params: PositionParamsSchema,
        headers: IdempotencyKeyHeadersSchema,
        body: CandidateCreateSchema,
        response: responses(CandidateSchema, 401, 403, 404, 409, 422),
      },
    },
    async (request, reply) => {
      const orgId = tenantOf(request);
      const { position_id } = request.params;
      await checkApplicationLinks(
        ctx.ownership,
        ctx.db,
        orgId,
        position_id,
        applicationLinkLocs([request.body], () => ["body"]),
      );
      const audited = auditedOf(ctx.audit, request);
      return ctx.idempotent(request, reply, orgId, {
        // The group commit, then the audit entry appended with those of concurrent creates (audit-trail.ts).
        plain: async () => {
          const row = await createCandidate(ctx.candidateIntake, ctx.interviewBaseUrl, orgId, position_id, request.body);
          if (audited) await recordAuditAfter(ctx.db, audited, [candidateCreated(orgId, row.id, position_id)]);
          return toCandidate(row);
        },
        keyed: async (tx) => {
          const row = await createCandidateIn(tx, ctx.events, ctx.interviewBaseUrl, orgId, position_id, request.body, audited);
          return { body: toCandidate(row), committed: () => ctx.events.committed([orgId]) };
        },
      });
    },
  );
}

/** Several candidates of a position updated at once. */
function registerCandidatesUpdate(app: RouteApp, ctx: RecruitingContext): void {
  app.put(
    "/org/:org_id/positions/:position_id/",
    {
      schema: {
        ...common,
        summary: "Update several candidates of a position",
        description:
          "An array of `{id, ...fields}` applied in one transaction, all or nothing. Answers the updated candidates in the order sent; 404 names the first id not in the position. While the candidate's interview is final (graded or cancelled), `score`, `feedback` and `completed_at` mirror its result: a change to one is 409 naming the candidate (sending the value the candidate holds answers 200); a graded result is corrected through `POST …/candidates/{candidate_id}/interview/correction`.",
        params: PositionParamsSchema,
        body: CandidateBulkUpdateSchema,
        response: responses(CandidateListSchema, 401, 403, 404, 409, 422),
      },
    },
    async (request) => {
      const orgId = tenantOf(request);
      const { position_id } = request.params;
      await checkApplicationLinks(
        ctx.ownership,
        ctx.db,
        orgId,
        position_id,
        applicationLinkLocs(request.body, (i) => ["body", i]),
      );
      const rows = await bulkUpdateCandidates(ctx.db, ctx.events, orgId, position_id, request.body, auditedOf(ctx.audit, request));
      return rows.map(toCandidate);
    },
  );
}

/** One candidate: read and update. */
function registerCandidateRecord(app: RouteApp, ctx: RecruitingContext): void {
  app.get(
    "/org/:org_id/positions/:position_id/candidates/:candidate_id/",
    {
      schema: {
        ...common,
        summary: "Get a candidate",
        description:
          "One candidate of the position, with the score and feedback of their graded interview; 404 when the candidate is not the position's.",
        params: CandidateParamsSchema,
        response: responses(CandidateSchema, 401, 403, 404, 422),
      },
    },
    async (request) => {
      const { position_id, candidate_id } = request.params;
      const row = await findCandidate(ctx.db, tenantOf(request), position_id, candidate_id);
      if (!row) throw notFound("Candidate not found");
      return toCandidate(row);
    },
  );
  app.put(
    "/org/:org_id/positions/:position_id/candidates/:candidate_id/",
    {
      schema: {
        ...common,
        summary: "Update a candidate (partial)",
        description:
          "Only the fields sent change; `updated_at` moves. While the candidate's interview is final (graded or cancelled), `score`, `feedback` and `completed_at` mirror its result: a change to one is 409 (sending the value the candidate holds answers 200); a graded result is corrected through `POST …/candidates/{candidate_id}/interview/correction`.",
        params: CandidateParamsSchema,
        body: CandidateUpdateSchema,
        response: responses(CandidateSchema, 401, 403, 404, 409, 422),
      },
    },
    async (request) => {
      const { position_id, candidate_id } = request.params;
      const orgId = tenantOf(request);
      await checkApplicationLinks(
        ctx.ownership,
        ctx.db,
        orgId,
        position_id,
        applicationLinkLocs([request.body], () => ["body"]),
      );
      const row = await updateCandidate(ctx.db, ctx.events, orgId, position_id, candidate_id, request.body, auditedOf(ctx.audit, request));
      if (!row) throw notFound("Candidate not found");
      return toCandidate(row);
    },
  );
}

/** Candidate paths use the plural `positions` segment and end with a slash, as the spec states. */
export const candidateRoutes: FastifyPluginAsyncTypebox<{ ctx: RecruitingContext }> = async (app, { ctx }) => {
  registerPositionCandidates(app, ctx);
  registerCandidatesUpdate(app, ctx);
  registerCandidateRecord(app, ctx);
};
