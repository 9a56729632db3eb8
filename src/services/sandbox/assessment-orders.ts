/**
 * A recruiter's "send assessment" click in the ATS: an OPEN order for one application, filled
 * from the sandbox's own records, announced with the signed order webhook; the receiver's answer
 * decides what the ATS shows (a 2xx accepts, a 422 `{message}` rejects with that message, an
 * inline order's answer carries the `assessment_url`). A receiver that fails is retried in the
 * background and its later answer lands on the order the same way.
 */
import { Value } from "@sinclair/typebox/value";
import {
  AssessmentOrderRejectionSchema,
  InlineAssessmentAnswerSchema,
  type AssessmentWebhookEventType,
} from "../../contracts/upstream/index.js";
import type { SandboxContext } from "./context.js";
import { newId } from "./data/random.js";
import { SandboxError, recordNotFound } from "./errors.js";
import { orderSnapshot, renderOrderReceived } from "./render/assessment-render.js";
import type { OrderRow } from "./store/assessments.js";
import type { Integration } from "./store/sandbox-store.js";
import type { DeliveryRecord, ReceiverAnswer } from "./webhooks/webhook-sender.js";

export type PlaceOrderInput = { applicationId: string; packageId: string; inline: boolean };

/** The statuses a receiver answers on purpose: 422 rejects the order (any 2xx accepts it). */
const REJECTION_STATUS = 422;

function newOrder(integration: Integration, input: PlaceOrderInput): OrderRow {
  const { data, assessment } = integration;
  const application = data.applications.get(input.applicationId);
  if (!application || application.deletedAt !== null) throw recordNotFound("application", input.applicationId);
  if (!assessment.package(input.packageId)) {
    throw new SandboxError(
      400,
      "PLATFORM.INPUT_INVALID",
      `No package ${JSON.stringify(input.packageId)} is published to this integration (PUT /v1/assessment/packages publishes them).`,
      { title: "Unknown package" },
    );
  }
  const snapshot = orderSnapshot(data, application);
  if (!snapshot) throw recordNotFound("candidate or job of application", application.id);
  const id = newId();
  const at = assessment.tick();
  return assessment.orders.insert({
    id,
    remoteId: id,
    changedAt: at,
    deletedAt: null,
    seq: 0,
    packageId: input.packageId,
    status: "OPEN",
    inline: input.inline,
    applicationId: application.id,
    ...snapshot,
    createdAt: at,
    receiver: { state: "pending", eventId: null, status: null, attempts: 0, error: null },
    rejectionMessage: null,
    assessmentUrl: null,
    result: null,
    attachments: [],
  });
}

/** Puts one attempt's answer on the order. */
function recordAnswer(
  ctx: SandboxContext,
  integration: Integration,
  order: OrderRow,
  answer: ReceiverAnswer,
  record: DeliveryRecord,
): void {
  order.receiver = {
    state: "pending",
    eventId: record.event_id,
    status: answer.status,
    attempts: record.attempts,
    error: record.last_error,
  };
  if (record.state === "delivered") {
    order.receiver.state = "accepted";
    if (order.inline) {
      if (Value.Check(InlineAssessmentAnswerSchema, answer.body)) order.assessmentUrl = answer.body.assessment_url;
      else order.receiver.error = "the answer to an inline order carried no assessment_url (an http or https URL)";
    }
  } else if (record.state === "rejected") {
    order.receiver.state = "rejected";
    // A result written meanwhile wins: only an open order becomes REJECTED.
    if (order.status === "OPEN") {
      order.status = "REJECTED";
      order.rejectionMessage = Value.Check(AssessmentOrderRejectionSchema, answer.body) ? answer.body.message : null;
    }
  } else {
    order.receiver.state = record.state === "retrying" ? "retrying" : "failed";
  }
  integration.assessment.touch(order);
  ctx.changed();
}

/** Places the order, sends its webhook and resolves with the order once the receiver first answered. */
export async function placeOrder(ctx: SandboxContext, integration: Integration, input: PlaceOrderInput): Promise<OrderRow> {
  const order = newOrder(integration, input);
  ctx.changed();
  const type: AssessmentWebhookEventType = input.inline ? "inline-assessment:order-received" : "assessment:order-received";
  const record = await ctx.webhooks.deliver(type, renderOrderReceived(order, integration.id), {
    answers: [REJECTION_STATUS],
    onAnswer: (answer, r) => recordAnswer(ctx, integration, order, answer, r),
  });
  if (record.state === "not_sent") {
    order.receiver = { state: "not_sent", eventId: record.event_id, status: null, attempts: 0, error: "no webhook receiver is configured" };
    integration.assessment.touch(order);
  }
  return order;
}
