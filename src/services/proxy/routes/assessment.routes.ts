import type { AssessmentAttachment } from "../../../contracts/proxy/assessment.js";
import { validationError, type ValidationIssue } from "../../../shared/errors.js";
import { OPERATIONS } from "../operations/operations.table.js";
import type { ProxyRoutes } from "../proxy-deps.js";
import { forward, route } from "./forward.js";

/**
 * The rule of a result's files the schema leaves to code: exactly one of `data` (base64, which needs
 * its `content_type`) or `data_url`; the upstream would refuse the rest after the caller waited.
 */
function attachmentIssues(attachments: readonly AssessmentAttachment[] | undefined): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  (attachments ?? []).forEach((a, i) => {
    const loc = ["body", "attachments", i];
    if ((a.data === undefined) === (a.data_url === undefined)) {
      issues.push({ loc, msg: "Give exactly one of data (base64) or data_url", type: "value_error" });
    } else if (a.data !== undefined && a.content_type === undefined) {
      issues.push({ loc: [...loc, "content_type"], msg: "Field required with data", type: "missing" });
    }
  });
  return issues;
}

/**
 * Assessment (issue 40): the upstream's packages, orders and order results, passed through for the
 * caller's own integration. None is cached: two are writes, and the orders are read live as the
 * fallback for missed webhooks.
 */
export const assessmentRoutes: ProxyRoutes = async (app, { deps }) => {
  const { getAssessmentPackages, setAssessmentPackages, listAssessmentOrders, updateAssessmentOrderResult } = OPERATIONS;
  route(app, getAssessmentPackages, (request, reply) => forward(deps, getAssessmentPackages, request, reply));
  route(app, setAssessmentPackages, (request, reply) => forward(deps, setAssessmentPackages, request, reply));
  route(app, listAssessmentOrders, (request, reply) => forward(deps, listAssessmentOrders, request, reply));
  route(
    app,
    updateAssessmentOrderResult,
    (request, reply) => forward(deps, updateAssessmentOrderResult, request, reply),
    (request) => {
      const issues = attachmentIssues(request.body.attachments);
      if (issues.length > 0) throw validationError(issues);
    },
  );
};
