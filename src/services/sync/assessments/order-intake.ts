import type { Logger } from "pino";
import type { AssessmentOrderWebhook } from "../../../contracts/proxy/assessment-orders.js";
import type { Db, Queryable, Tx } from "../../../shared/db/database.js";
import type { AssessmentRecruiting, OrderIntake } from "../../../shared/ports/assessment-orders.js";
import type { EventsOut, OutboundEvent } from "../../../shared/ports/events-out.js";
import type { IntegrationLookup } from "../../../shared/ports/integrations.js";
import { cut } from "../../../shared/text.js";
import { findOrder, findSettings, isUuid, lockOrderKey, recordOrder } from "./assessment-orders.repository.js";
import type { AssessmentOrderRow } from "./assessments.tables.js";
import { takesOrders } from "./packages.js";

export type OrderIntakeDeps = {
  db: Db;
  integrations: Pick<IntegrationLookup, "find">;
  recruiting: AssessmentRecruiting<Tx, Queryable>;
  events: EventsOut<Queryable>;
  logger: Logger;
};

/** What the receiver answers: accepted (with the interview link when it made or found one) or rejected with a message. */
export type OrderDecision =
  | { accepted: true; order: AssessmentOrderRow; interviewLink: string | null; duplicate: boolean }
  | { accepted: false; message: string };

const UNKNOWN_INTEGRATION = "This ATS connection is not set up with Hirebridge: connect it in Hirebridge before ordering interviews.";
const NOT_TAKING_ORDERS =
  "This ATS connection is not set up for Hirebridge interview orders. An administrator of your organisation can turn on assessment orders for it in Hirebridge (the connection's Assessment orders tab), then order again.";
const UNKNOWN_PACKAGE = "This interview package is no longer offered. Refresh the list of packages and order again.";

/** An order's event data: ids and status only, never the candidate's personal data. */
export function orderEvent(type: "assessment_order.received" | "assessment_order.completed", row: AssessmentOrderRow): OutboundEvent {
  return {
    orgId: row.orgId,
    type,
    data: {
      id: row.id,
      integration_id: row.integrationId,
      order_id: row.orderId,
      package_id: row.packageId,
      position_id: row.positionId,
      candidate_id: row.candidateId,
      inline: row.inline,
      status: row.status,
      result_status: row.resultStatus,
    },
  };
}

/** The order as the recruiting side takes it: the candidate's name from its parts, its link to the ATS application. */
function intakeOf(orgId: string, data: AssessmentOrderWebhook["data"]): OrderIntake {
  const { candidate } = data;
  const name = [candidate.first_name, candidate.last_name]
    .filter((p) => p?.trim())
    .join(" ")
    .trim();
  return {
    orgId,
    integrationId: data.integration_id,
    orderId: data.id,
    packageId: data.package_id,
    job: { remoteId: data.job.remote_id, name: data.job.name },
    candidate: {
      // Without an application upstream, the order itself is what the candidate links to.
      applicationId: data.application.remote_id ?? cut(`order:${data.id}`, 100),
      name: cut(name || candidate.email, 200),
      email: candidate.email,
      phone: candidate.phone?.trim() ? candidate.phone : null,
    },
  };
}

/**
 * Decides an order synchronously, as the upstream expects (2xx accepts it, 422 rejects it with
 * the message the ATS shows): the integration must be known here and take orders (the rule of
 * packages.ts; an integration that does not is refused before anything is written, as no package
 * was offered through it), and its organisation (never the payload's word) owns the package, a
 * position in state `template`. An accepted order's
 * position, candidate, interview, record and `assessment_order.received` event commit together;
 * a rejected one is recorded too (the organisation's listing shows it). A repeated delivery is
 * answered as the first was and creates nothing.
 */
export async function takeOrder(deps: OrderIntakeDeps, data: AssessmentOrderWebhook["data"], inline: boolean): Promise<OrderDecision> {
  const integration = await deps.integrations.find(data.integration_id);
  if (!integration || integration.deletedAt) return { accepted: false, message: UNKNOWN_INTEGRATION };
  const orgId = integration.orgId;
  // The row just read is the organisation's own and live: the rule needs no second read of it.
  if (!takesOrders(integration.category, await findSettings(deps.db, data.integration_id))) {
    deps.logger.info(
      { integration_id: data.integration_id, order_id: data.id, inline },
      "assessment order rejected: the integration does not take orders",
    );
    return { accepted: false, message: NOT_TAKING_ORDERS };
  }
  const intake = intakeOf(orgId, data);
  const decision = await deps.db.transaction(async (tx): Promise<OrderDecision> => {
    await lockOrderKey(tx, data.integration_id, data.id);
    const seen = await findOrder(tx, data.integration_id, data.id);
    if (seen?.status === "rejected") return { accepted: false, message: seen.message ?? UNKNOWN_PACKAGE };
    if (seen && !inline) return { accepted: true, order: seen, interviewLink: null, duplicate: true };
    const made = isUuid(data.package_id) ? await deps.recruiting.intake(tx, intake) : ({ ok: false, reason: UNKNOWN_PACKAGE } as const);
    if (seen && made.ok) return { accepted: true, order: seen, interviewLink: made.interviewLink, duplicate: true };
    const base = { integrationId: data.integration_id, orderId: data.id, orgId, packageId: data.package_id, inline };
    if (!made.ok) {
      await recordOrder(tx, { ...base, status: "rejected", message: made.reason });
      return { accepted: false, message: made.reason };
    }
    const { row, inserted } = await recordOrder(tx, {
      ...base,
      status: "accepted",
      positionId: made.positionId,
      candidateId: made.candidateId,
    });
    if (inserted) await deps.events.record(tx, [orderEvent("assessment_order.received", row)]);
    return { accepted: true, order: row, interviewLink: made.interviewLink, duplicate: !inserted };
  });
  deps.events.committed([orgId]);
  deps.logger.info(
    { integration_id: data.integration_id, order_id: data.id, inline, accepted: decision.accepted },
    decision.accepted ? "assessment order accepted" : "assessment order rejected",
  );
  return decision;
}
