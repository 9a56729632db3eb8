import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { responses } from "../../../contracts/recruiting/fields.js";
import { InterviewCorrectionSchema, InterviewSchema, InterviewUpdateSchema } from "../../../contracts/recruiting/interviews.js";
import { CandidateParamsSchema } from "../../../contracts/recruiting/org.js";
import { notFound } from "../../../shared/errors.js";
import { auditedOf } from "../audit-trail.js";
import type { RecruitingContext } from "../context.js";
import { tenantOf } from "../org/tenant-guard.js";
import { findInterview, toInterview } from "./interviews.repository.js";
import { correctInterview, reportInterview } from "./interviews.service.js";

const common = { tags: ["interviews"], security: [{ bearer: [] }] };
const PATH = "/org/:org_id/positions/:position_id/candidates/:candidate_id/interview/";

export const interviewRoutes: FastifyPluginAsyncTypebox<{ ctx: RecruitingContext }> = async (app, { ctx }) => {
  app.get(
    PATH,
    {
      schema: {
        ...common,
        summary: "Get a candidate's interview",
        description:
          "The candidate's interview record (one per candidate, created with them): status, times, links and results. `interview_link` is the candidate's unguessable page (`GET /interview/{token}` on this server, or INTERVIEW_BASE_URL's front end).",
        params: CandidateParamsSchema,
        response: responses(InterviewSchema, 401, 403, 404, 422),
      },
    },
    async (request) => {
      const { position_id, candidate_id } = request.params;
      const row = await findInterview(ctx.db, tenantOf(request), position_id, candidate_id);
      if (!row) throw notFound("Candidate not found");
      return toInterview(row);
    },
  );

  app.put(
    PATH,
    {
      schema: {
        ...common,
        summary: "Report interview progress or results (interview runner)",
        description:
          "Only the fields sent change. Status moves not_started → completed | errored | cancelled, completed → graded, errored → not_started; any other change is 409. Grading needs a score; the candidate's score, feedback and completed_at then follow the interview. A graded or cancelled interview is final: a report that would change it is 409 (a repeat of what it holds answers 200 and changes nothing); a graded result is corrected through `POST …/interview/correction`. Links (`recording_link`, `transcript_link`) must be http or https URLs.",
        params: CandidateParamsSchema,
        body: InterviewUpdateSchema,
        response: responses(InterviewSchema, 401, 403, 404, 409, 422),
      },
    },
    async (request) => {
      const { position_id, candidate_id } = request.params;
      const ref = { orgId: tenantOf(request), positionId: position_id, candidateId: candidate_id };
      return toInterview(await reportInterview(ctx.db, ctx.hooks, ctx.events, ref, request.body, auditedOf(ctx.audit, request)));
    },
  );

  app.post(
    `${PATH}correction`,
    {
      schema: {
        ...common,
        summary: "Correct a graded result (score, feedback) and tell the ATS",
        description:
          "The one way to change a graded interview's result: the score (and feedback, when sent) change on the interview and the candidate, and when the position writes back to the ATS a corrective write-back follows (its stage move for the new outcome, the result link, and a note that says it corrects an earlier result and why), all in one transaction. 409 unless the interview is graded.",
        params: CandidateParamsSchema,
        body: InterviewCorrectionSchema,
        response: responses(InterviewSchema, 401, 403, 404, 409, 422),
      },
    },
    async (request) => {
      const { position_id, candidate_id } = request.params;
      const ref = { orgId: tenantOf(request), positionId: position_id, candidateId: candidate_id };
      return toInterview(await correctInterview(ctx.db, ctx.hooks, ctx.events, ref, request.body, auditedOf(ctx.audit, request)));
    },
  );
};
