import type { AssessmentAttribute, AssessmentResult } from "../../../contracts/proxy/assessment.js";
import type { Db, Queryable } from "../../../shared/db/database.js";
import type { EventsOut } from "../../../shared/ports/events-out.js";
import type { InterviewResult } from "../../../shared/ports/recruiting-sync.js";
import { cut } from "../../../shared/text.js";
import type { AtsReader } from "../ats-reader.js";
import type { WriteBackRow } from "../sync.tables.js";
import { settleOrder } from "./assessment-orders.repository.js";
import { orderEvent } from "./order-intake.js";
import { renderReport } from "./pdf-report.js";

/** Hirebridge's scores are 0–100. */
export const MAX_SCORE = 100;

export type OrderResultDeps = {
  db: Db;
  reader: AtsReader;
  events: EventsOut<Queryable>;
  /** The recruiter's results page for a token (on the recruiting API; no bearer token needed). */
  resultsUrl: (token: string) => string;
};

/** The body of `PUT /assessment/orders/{id}/result`: COMPLETED with score, feedback and report, or CANCELLED. */
export async function orderResultBody(deps: Pick<OrderResultDeps, "resultsUrl">, result: InterviewResult): Promise<AssessmentResult> {
  const { report } = result;
  const completedAt = report.completedAt ?? new Date().toISOString();
  // A candidate from an order always has its token; the interview's own link is the fallback.
  const resultUrl = report.resultsToken ? deps.resultsUrl(report.resultsToken) : (result.link ?? deps.resultsUrl(""));
  if (result.status !== "graded") return { status: "CANCELLED", result_url: resultUrl, completed_at: completedAt };
  const attributes: AssessmentAttribute[] = result.feedback ? [{ type: "TEXT", label: "Feedback", value: cut(result.feedback, 4000) }] : [];
  const pdf = await renderReport({
    candidateName: report.candidateName,
    positionName: report.positionName,
    score: result.score,
    maxScore: MAX_SCORE,
    feedback: result.feedback,
    completedAt,
  });
  return {
    status: "COMPLETED",
    result_url: resultUrl,
    completed_at: completedAt,
    ...(result.score !== null ? { score: result.score } : {}),
    max_score: MAX_SCORE,
    attributes,
    attachments: [{ name: "Hirebridge interview report.pdf", content_type: "application/pdf", data: pdf.toString("base64") }],
  };
}

/**
 * The write-back's step for a candidate that came from an order: the result goes on the order
 * (once: the upstream changes an order only while it is OPEN), and the order's record becomes
 * COMPLETED or CANCELLED with its `assessment_order.completed` event, in one transaction.
 */
export async function writeOrderResult(deps: OrderResultDeps, wb: WriteBackRow, result: InterviewResult): Promise<void> {
  const orderId = wb.assessmentOrderId!;
  const body = await orderResultBody(deps, result);
  await deps.reader.action(wb.integrationId, "PUT", `/assessment/orders/${encodeURIComponent(orderId)}/result`, body);
  const status = body.status === "COMPLETED" ? "COMPLETED" : "CANCELLED";
  await deps.db.transaction(async (tx) => {
    const row = await settleOrder(tx, wb.integrationId, orderId, status);
    if (row) await deps.events.record(tx, [orderEvent("assessment_order.completed", row)]);
  });
  deps.events.committed([wb.orgId]);
}
