/**
 * The upstream's assessment API (X-Integration-Id): the vendor's packages, the orders placed in
 * the ATS, and the result written back on an order. Answers are serialised from the contracts'
 * schemas, which the official SDK's models parse.
 */
import { Type } from "@sinclair/typebox";
import type { App } from "../../../shared/http/create-app.js";
import {
  AssessmentOrderParamsSchema,
  AssessmentOrderSchema,
  AssessmentOrderStatusSchema,
  AssessmentOrdersQuerySchema,
  AssessmentPackagesSchema,
  SetAssessmentPackagesBodySchema,
  UpdateAssessmentResultBodySchema,
  UpstreamActionSuccessSchema,
  UpstreamListSuccessSchema,
  UpstreamSuccessSchema,
  type UpstreamWarning,
} from "../../../contracts/upstream/index.js";
import type { SandboxContext } from "../context.js";
import { inputInvalid, recordNotFound } from "../errors.js";
import { dateParam, listPage, listParam, type FilterSpec, type RawQuery } from "../http/list-query.js";
import { integrationOf } from "../http/upstream-guards.js";
import { renderOrder, renderPackage } from "../render/assessment-render.js";
import type { OrderRow } from "../store/assessments.js";
import { RESULT_BODY_LIMIT, attachmentsOf, checkResult, resultOf } from "./assessment-result.js";

const EmptyActionAnswer = { 200: UpstreamActionSuccessSchema(Type.Object({})) };
const STATUSES = new Set<string>(AssessmentOrderStatusSchema.anyOf.map((s) => s.const));

const ORDER_FILTERS: FilterSpec<OrderRow> = {
  filters: {
    statuses: { match: (values) => (row) => values.has(row.status) },
    created_after: {
      match: (values) => {
        const from = dateParam([...values][0], "created_after") ?? 0;
        return (row) => row.createdAt >= from;
      },
    },
  },
};

function checkStatuses(raw: string | undefined): void {
  for (const s of listParam(raw) ?? []) {
    if (!STATUSES.has(s)) throw inputInvalid(`query.statuses: ${JSON.stringify(s)} is not one of ${[...STATUSES].join(", ")}`);
  }
}

/** `_ctx`: the routes need only the request's integration; the signature matches the other route modules. */
export function registerAssessmentRoutes(app: App, _ctx: SandboxContext): void {
  app.put(
    "/assessment/packages",
    { schema: { body: SetAssessmentPackagesBodySchema, response: EmptyActionAnswer }, config: { upstream: { xi: true, action: true } } },
    async (request) => {
      const { packages } = request.body;
      const seen = new Set<string>();
      packages.forEach((p, i) => {
        if (seen.has(p.id)) throw inputInvalid(`body.packages.${i}.id: ${JSON.stringify(p.id)} appears twice`);
        seen.add(p.id);
      });
      integrationOf(request).assessment.setPackages(packages);
      return { status: "success" as const, data: {}, warnings: [] };
    },
  );

  app.get(
    "/assessment/packages",
    { schema: { response: { 200: UpstreamSuccessSchema(AssessmentPackagesSchema) } }, config: { upstream: { xi: true } } },
    async (request) => ({
      status: "success" as const,
      data: { packages: integrationOf(request).assessment.packages.map(renderPackage) },
    }),
  );

  app.get(
    "/assessment/orders",
    {
      schema: { querystring: AssessmentOrdersQuerySchema, response: { 200: UpstreamListSuccessSchema(AssessmentOrderSchema) } },
      config: { upstream: { xi: true } },
    },
    async (request) => {
      checkStatuses(request.query.statuses);
      const { orders } = integrationOf(request).assessment;
      return { status: "success" as const, data: listPage(orders, request.query as RawQuery, ORDER_FILTERS, renderOrder) };
    },
  );

  app.put(
    "/assessment/orders/:assessment_order_id/result",
    {
      bodyLimit: RESULT_BODY_LIMIT,
      schema: { params: AssessmentOrderParamsSchema, body: UpdateAssessmentResultBodySchema, response: EmptyActionAnswer },
      config: { upstream: { xi: true, action: true } },
    },
    async (request) => {
      const { assessment } = integrationOf(request);
      // Another integration's order is not found here: orders are per integration.
      const order = assessment.orders.get(request.params.assessment_order_id);
      if (!order) throw recordNotFound("assessment order", request.params.assessment_order_id);
      checkResult(order, request.body);
      const warnings: UpstreamWarning[] = [];
      const attachments = await attachmentsOf(request.body, warnings);
      // Checked again after the downloads: another write may have closed the order meanwhile.
      checkResult(order, request.body);
      assessment.writeResult(order, resultOf(request.body), attachments);
      return { status: "success" as const, data: {}, warnings };
    },
  );
}
