import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import {
  ATS_COPY_NOTICE,
  CandidateErasureSchema,
  EraseCandidateQuerySchema,
  PositionErasureSchema,
  SuppressionLiftedSchema,
  SuppressionParamsSchema,
} from "../../../contracts/recruiting/erasure.js";
import { responses } from "../../../contracts/recruiting/fields.js";
import { CandidateParamsSchema, PositionParamsSchema } from "../../../contracts/recruiting/org.js";
import { auditActorOf } from "../../../shared/auth/audit-actor.js";
import { notFound } from "../../../shared/errors.js";
import type { RecruitingContext } from "../context.js";
import { tenantOf } from "../org/tenant-guard.js";
import { eraseCandidatesIn } from "./erasure.js";
import { erasePositionIn } from "./position-erasure.js";
import { deleteSuppression, lockCandidateOfPosition, suppressionIdOf } from "./erasure-records.repository.js";

/** A reason sent in the body (`{"reason": "…"}`), when there is one: the query's `reason` wins. */
function bodyReason(body: unknown): string | null {
  const r = body && typeof body === "object" ? (body as { reason?: unknown }).reason : undefined;
  return typeof r === "string" ? r.slice(0, 500) : null;
}

/** The app a Typebox plugin is given. */
type RouteApp = Parameters<FastifyPluginAsyncTypebox>[0];

/** DELETE of a candidate (erasure, docs/privacy.md "Erasure"). */
function registerCandidateErasure(app: RouteApp, ctx: RecruitingContext): void {
  app.delete(
    "/org/:org_id/positions/:position_id/candidates/:candidate_id/",
    {
      schema: {
        tags: ["candidates"],
        security: [{ bearer: [] }],
        summary: "Erase a candidate",
        description: `Removes the candidate's personal data from every place Hirebridge keeps it: the candidate and interview rows, stored inbound webhook events that carry it, outbound event bodies with their delivery attempts, the write-back history and its notes, the activity trail, the sync records and the candidate list cache. What stays is a tombstone of ids (candidate, position, organization, upstream application), the time, who asked and \`reason\` (query or body). The sync does not re-create the candidate (a suppression keyed on the application id and a keyed hash of the email; lift it with \`DELETE /org/{org_id}/erasure-suppressions/{suppression_id}/\`). A \`candidate.erased\` event (ids only) goes to the organization's webhook endpoints. Answers what was erased by kind and count; a second call answers 404. ${ATS_COPY_NOTICE}`,
        params: CandidateParamsSchema,
        querystring: EraseCandidateQuerySchema,
        response: responses(CandidateErasureSchema, 401, 403, 404, 422),
      },
    },
    async (request) => {
      const orgId = tenantOf(request);
      const { position_id, candidate_id } = request.params;
      const reason = request.query.reason ?? bodyReason(request.body);
      const result = await ctx.db.transaction(async (tx) => {
        if (!(await lockCandidateOfPosition(tx, orgId, position_id, candidate_id))) return null;
        const { counts } = await eraseCandidatesIn(tx, orgId, [candidate_id], {
          actor: auditActorOf(request),
          reason,
          suppressEmail: true,
          key: ctx.erasureKey,
          audit: ctx.audit,
          events: ctx.events,
        });
        return { counts, suppressionId: await suppressionIdOf(tx, orgId, candidate_id) };
      });
      if (!result) throw notFound("Candidate not found");
      ctx.events.committed([orgId]);
      return { erased: result.counts, suppression_id: result.suppressionId, ats_copy: ATS_COPY_NOTICE };
    },
  );
}

/** DELETE of a position with its candidates (the same erasure for each, then the position). */
function registerPositionErasure(app: RouteApp, ctx: RecruitingContext): void {
  app.delete(
    "/org/:org_id/position/:position_id",
    {
      schema: {
        tags: ["positions"],
        security: [{ bearer: [] }],
        summary: "Erase a position with its candidates",
        description: `Erases every candidate of the position as \`DELETE …/positions/{position_id}/candidates/{candidate_id}/\` does (a tombstone of ids, a suppression, a \`candidate.erased\` event and audit entry for each), then deletes the position; one \`position.erased\` audit entry (ids and counts only). A template's deletion publishes the organization's assessment packages again, without it. Answers what was erased by kind and count; a second call answers 404. A position synced from an upstream job comes back on the job's next sync, without its erased candidates. ${ATS_COPY_NOTICE}`,
        params: PositionParamsSchema,
        querystring: EraseCandidateQuerySchema,
        response: responses(PositionErasureSchema, 401, 403, 404, 422),
      },
    },
    async (request) => {
      const orgId = tenantOf(request);
      const counts = await ctx.db.transaction((tx) =>
        erasePositionIn(tx, orgId, request.params.position_id, {
          actor: auditActorOf(request),
          reason: request.query.reason ?? bodyReason(request.body),
          suppressEmail: true,
          key: ctx.erasureKey,
          audit: ctx.audit,
          events: ctx.events,
          onTemplates: ctx.hooks.onTemplatesChanged,
        }),
      );
      if (!counts) throw notFound("Position not found");
      ctx.events.committed([orgId]);
      return { erased: counts, ats_copy: ATS_COPY_NOTICE };
    },
  );
}

/** The lifting of an erasure's suppression. */
function registerSuppressionLift(app: RouteApp, ctx: RecruitingContext): void {
  app.delete(
    "/org/:org_id/erasure-suppressions/:suppression_id/",
    {
      schema: {
        tags: ["candidates"],
        security: [{ bearer: [] }],
        summary: "Lift an erasure's suppression",
        description:
          "Lets the sync create the erased candidate again from their upstream application (and a new application with the same email). The tombstone stays. 404 when the suppression is not the organization's.",
        params: SuppressionParamsSchema,
        response: responses(SuppressionLiftedSchema, 401, 403, 404, 422),
      },
    },
    async (request) => {
      const orgId = tenantOf(request);
      if (!(await deleteSuppression(ctx.db, orgId, request.params.suppression_id))) throw notFound("Suppression not found");
      return { lifted: true as const };
    },
  );
}

/** The erasure routes (docs/privacy.md "Erasure"). */
export const erasureRoutes: FastifyPluginAsyncTypebox<{ ctx: RecruitingContext }> = async (app, { ctx }) => {
  registerCandidateErasure(app, ctx);
  registerPositionErasure(app, ctx);
  registerSuppressionLift(app, ctx);
};
