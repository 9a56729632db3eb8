import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { IdempotencyKeyHeadersSchema, responses } from "../../../contracts/recruiting/fields.js";
import { OrgParamsSchema, PositionParamsSchema } from "../../../contracts/recruiting/org.js";
import {
  PositionCreateSchema,
  PositionListQuerySchema,
  PositionListSchema,
  PositionSchema,
  PositionUpdateSchema,
  type PositionList,
} from "../../../contracts/recruiting/positions.js";
import { notFound, validationError } from "../../../shared/errors.js";
import { withConflicts } from "../http/db-errors.js";
import { auditedOf } from "../audit-trail.js";
import type { RecruitingContext } from "../context.js";
import { tenantOf } from "../org/tenant-guard.js";
import { checkPositionLink } from "../upstream/upstream-links.js";
import { decodeCursor, encodeCursor } from "./position-cursor.js";
import { findPosition, listPositions, toPosition } from "./positions.repository.js";
import { createPositionIn, createPositionWithEvent, updatePositionWithEvent } from "./positions.service.js";

const common = { tags: ["positions"], security: [{ bearer: [] }] };
const UPSTREAM_JOB_TAKEN = {
  positions_upstream_job_key: "Another position of this organization is already linked to this upstream job",
};

/** The app a Typebox plugin is given. */
type RouteApp = Parameters<FastifyPluginAsyncTypebox>[0];

/** `/org/{org_id}/position`: list and create. */
function registerPositionCollection(app: RouteApp, ctx: RecruitingContext): void {
  app.get(
    "/org/:org_id/position",
    {
      schema: {
        ...common,
        summary: "List the organization's positions",
        description: "All positions, oldest first. With `limit`, one page and a `next_cursor`.",
        params: OrgParamsSchema,
        querystring: PositionListQuerySchema,
        response: responses(PositionListSchema, 401, 403, 422),
      },
    },
    async (request) => {
      const { limit, cursor, state } = request.query;
      const after = cursor === undefined ? undefined : decodeCursor(cursor);
      if (after === null) throw validationError([{ loc: ["query", "cursor"], msg: "Invalid cursor", type: "value_error" }]);
      const page = await listPositions(ctx.db, tenantOf(request), { limit, after, state });
      const answer: PositionList = { items: page.rows.map(toPosition) };
      if (limit !== undefined) answer.next_cursor = page.more && page.last ? encodeCursor(page.last) : null;
      return answer;
    },
  );
  app.post(
    "/org/:org_id/position",
    {
      schema: {
        ...common,
        summary: "Create a position",
        description:
          "`name` is required; `state` defaults to draft, `accepted_languages` to [] and `auto_update_stages` to false. The stage fields (`candidate_stage`, `passed_stage`, `rejected_stage`, `needs_reviewed_stage`) take an upstream stage's id or name; a synced position gets its job's ids in `upstream_job_id_id` and `upstream_integration_id`.",
        params: OrgParamsSchema,
        headers: IdempotencyKeyHeadersSchema,
        body: PositionCreateSchema,
        response: responses(PositionSchema, 401, 403, 409, 422),
      },
    },
    async (request, reply) => {
      const orgId = tenantOf(request);
      await checkPositionLink(ctx.ownership, orgId, request.body);
      return ctx.idempotent(request, reply, orgId, {
        plain: async () =>
          toPosition(
            await withConflicts(UPSTREAM_JOB_TAKEN, () =>
              createPositionWithEvent(ctx.db, ctx.events, orgId, request.body, ctx.hooks.onTemplatesChanged, auditedOf(ctx.audit, request)),
            ),
          ),
        keyed: async (tx) => {
          const row = await withConflicts(UPSTREAM_JOB_TAKEN, () =>
            createPositionIn(tx, ctx.events, orgId, request.body, ctx.hooks.onTemplatesChanged, auditedOf(ctx.audit, request)),
          );
          return { body: toPosition(row), committed: () => ctx.events.committed([orgId]) };
        },
      });
    },
  );
}

/** `/org/{org_id}/position/{position_id}`: read and update. */
function registerPositionRecord(app: RouteApp, ctx: RecruitingContext): void {
  app.get(
    "/org/:org_id/position/:position_id",
    {
      schema: {
        ...common,
        summary: "Get a position",
        description:
          "One position of the organization; 404 when it does not exist or belongs to another organization. Its candidates are at `GET /org/{org_id}/positions/{position_id}/` (plural, with a trailing slash).",
        params: PositionParamsSchema,
        response: responses(PositionSchema, 401, 403, 404, 422),
      },
    },
    async (request) => {
      const row = await findPosition(ctx.db, tenantOf(request), request.params.position_id);
      if (!row) throw notFound("Position not found");
      return toPosition(row);
    },
  );
  app.put(
    "/org/:org_id/position/:position_id",
    {
      schema: {
        ...common,
        summary: "Update a position (partial)",
        description: "Only the fields sent change; `updated_at` moves.",
        params: PositionParamsSchema,
        body: PositionUpdateSchema,
        response: responses(PositionSchema, 401, 403, 404, 409, 422),
      },
    },
    async (request) => {
      const { position_id } = request.params;
      const orgId = tenantOf(request);
      await checkPositionLink(ctx.ownership, orgId, request.body);
      const row = await withConflicts(UPSTREAM_JOB_TAKEN, () =>
        updatePositionWithEvent(
          ctx.db,
          ctx.events,
          orgId,
          position_id,
          request.body,
          ctx.hooks.onTemplatesChanged,
          auditedOf(ctx.audit, request),
        ),
      );
      if (!row) throw notFound("Position not found");
      return toPosition(row);
    },
  );
}

export const positionRoutes: FastifyPluginAsyncTypebox<{ ctx: RecruitingContext }> = async (app, { ctx }) => {
  registerPositionCollection(app, ctx);
  registerPositionRecord(app, ctx);
};
