import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { CandidateExportSchema } from "../../../contracts/recruiting/candidate-export.js";
import { responses } from "../../../contracts/recruiting/fields.js";
import { CandidateParamsSchema } from "../../../contracts/recruiting/org.js";
import { notFound } from "../../../shared/errors.js";
import { auditedOf, recordAudit } from "../audit-trail.js";
import type { RecruitingContext } from "../context.js";
import { tenantOf } from "../org/tenant-guard.js";
import { readCandidateExport } from "./candidate-export.repository.js";

/**
 * `GET …/candidates/{candidate_id}/export`: a data subject access request's answer (docs/privacy.md,
 * "Export"). The document is read in one snapshot; then the audit log records `candidate.exported`
 * (ids only) in a transaction of its own, so the export never holds the organisation's audit chain
 * while it reads.
 */
export const candidateExportRoutes: FastifyPluginAsyncTypebox<{ ctx: RecruitingContext }> = async (app, { ctx }) => {
  app.get(
    "/org/:org_id/positions/:position_id/candidates/:candidate_id/export",
    {
      schema: {
        tags: ["candidates"],
        security: [{ bearer: [] }],
        summary: "Export everything held about a candidate",
        description:
          "One JSON document with everything Hirebridge holds about the candidate, for a data subject access request (GDPR Art. 15 and 20): the candidate, their interview, the grading history (every grading and correction, with who or what made it and the score before and after), the results written back to the ATS (history, attempts, what each note said), failed upstream calls of those write-backs (the activity trail), stored inbound webhook events and outbound events naming the candidate (with their delivery attempts), the assessment order they came from, and the audit log's entries about them. Each export is recorded in the audit log as `candidate.exported`. 404 when the position has no such candidate. The ATS holds its own copy of the application, exported there.",
        params: CandidateParamsSchema,
        response: responses(CandidateExportSchema, 401, 403, 404, 422),
      },
    },
    async (request) => {
      const orgId = tenantOf(request);
      const { position_id, candidate_id } = request.params;
      const doc = await readCandidateExport(ctx.db, orgId, position_id, candidate_id);
      if (!doc) throw notFound("Candidate not found");
      const audited = auditedOf(ctx.audit, request);
      if (audited) {
        await ctx.db.transaction((tx) =>
          recordAudit(tx, audited, [
            { orgId, action: "candidate.exported", resourceType: "candidate", resourceIds: [candidate_id, position_id] },
          ]),
        );
      }
      return doc;
    },
  );
};
