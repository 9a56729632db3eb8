import type { AssessmentOrder } from "../../../contracts/proxy/assessment-orders.js";
import type { AssessmentOrderRow } from "./assessments.tables.js";

/** The names of orders' packages, positions and candidates (the organisation's own), by id. */
export type OrderNames = Map<string, string>;

/** An order as the listing and the activity trail show it, with its package's and candidate's names. */
export function toAssessmentOrder(o: AssessmentOrderRow, names: OrderNames): AssessmentOrder {
  return {
    id: o.id,
    order_id: o.orderId,
    integration_id: o.integrationId,
    package_id: o.packageId,
    package_name: names.get(o.packageId) ?? null,
    position_id: o.positionId,
    candidate_id: o.candidateId,
    candidate_name: o.candidateId ? (names.get(o.candidateId) ?? null) : null,
    inline: o.inline,
    status: o.status,
    result_status: o.resultStatus,
    message: o.message,
    created_at: o.createdAt.toISOString(),
    updated_at: o.updatedAt.toISOString(),
  };
}
