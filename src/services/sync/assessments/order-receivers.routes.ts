import { TypeCompiler } from "@sinclair/typebox/compiler";
import type { FastifyReply } from "fastify";
import {
  ASSESSMENT_ORDER_KINDS,
  AssessmentOrderAcceptedSchema,
  AssessmentOrderRejectionSchema,
  AssessmentOrderWebhookSchema,
  InlineAssessmentAnswerSchema,
  type AssessmentOrderReceiver,
  type AssessmentOrderWebhook,
} from "../../../contracts/proxy/assessment-orders.js";
import { WebhookQuerySchema } from "../../../contracts/proxy/webhooks.js";
import { ErrorDetailSchema, HTTPValidationErrorSchema } from "../../../contracts/common.js";
import { AppError, validationError } from "../../../shared/errors.js";
import { AddressBucket } from "../../../shared/http/address-bucket.js";
import { unstorableIssues } from "../../../shared/http/storable-input.js";
import { firstHeader, parseWebhookJson } from "../webhooks/webhook-json.js";
import type { App } from "../../../shared/http/create-app.js";
import type { SyncDeps } from "../sync-routes.deps.js";
import { isAuthentic } from "../webhooks/verify-signature.js";
import { takeOrder, type OrderIntakeDeps } from "./order-intake.js";

const orderCheck = TypeCompiler.Compile(AssessmentOrderWebhookSchema);

/** The order webhook, parsed and checked against its contract; 422 `{detail}` naming each bad field. */
function parseOrder(raw: Buffer, type: string): AssessmentOrderWebhook {
  const body = parseWebhookJson(raw);
  const issues = [...orderCheck.Errors(body)].slice(0, 20).map((e) => ({
    loc: ["body", ...e.path.split("/").filter(Boolean)] as (string | number)[],
    msg: e.message,
    type: "value_error",
  }));
  issues.push(...unstorableIssues(body, ["body"]));
  if (issues.length) throw validationError(issues);
  const order = body as AssessmentOrderWebhook;
  if (order.type !== type) throw validationError([{ loc: ["body", "type"], msg: `Input should be '${type}'`, type: "literal_error" }]);
  return order;
}

function receiverOptions(receiver: AssessmentOrderReceiver) {
  const { type, inline } = ASSESSMENT_ORDER_KINDS[receiver];
  return {
    schema: {
      tags: ["Webhooks"],
      summary: `Receive the upstream's ${type} event`,
      description: inline
        ? "An order placed from a career page. Signed like the other receivers. Answered within seconds with the candidate's interview link as `assessment_url`, or 422 `{message}` (the order is rejected with that message)."
        : "An order placed in the ATS. Signed like the other receivers. 200 accepts it (the candidate and interview exist when it answers); 422 `{message}` rejects it with that message, shown in the ATS. A repeated delivery is answered as the first was and creates nothing.",
      querystring: WebhookQuerySchema,
      body: { type: "object", additionalProperties: true, description: `The upstream's \`${type}\` event.` },
      response: {
        200: inline ? InlineAssessmentAnswerSchema : AssessmentOrderAcceptedSchema,
        401: ErrorDetailSchema,
        422: { anyOf: [AssessmentOrderRejectionSchema, HTTPValidationErrorSchema] },
        429: ErrorDetailSchema,
      },
    },
    // Authenticity first, on the raw bytes: no rate limit and no shared input check before it.
    config: { rateLimit: false as const, checksOwnInput: true },
    validatorCompiler: ({ httpPart }: { httpPart?: string }) => (httpPart === "body" ? () => true : undefined) as never,
  };
}

/**
 * The two order receivers (`/webhooks/upstream/assessment-order-received` and
 * `/inline-assessment-order-received`), signed exactly like the six others (the HMAC of the raw
 * body, verify-signature.ts). Unlike those, an order is decided before the answer, because the
 * answer is the decision: accepted (200), or rejected with a message (422) the ATS shows.
 */
export function orderReceiverRoutes(deps: SyncDeps, intake: OrderIntakeDeps) {
  return async (app: App) => {
    // The signature covers the exact bytes received: keep them, parse later.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser("*", { parseAs: "buffer" }, (_req, body, done) => done(null, body));
    const unauthentic = new AddressBucket(deps.config.RATE_LIMIT_PER_MINUTE);
    for (const receiver of Object.keys(ASSESSMENT_ORDER_KINDS) as AssessmentOrderReceiver[]) {
      const { type, inline } = ASSESSMENT_ORDER_KINDS[receiver];
      app.post(`/webhooks/upstream/${receiver}`, receiverOptions(receiver), async (request, reply: FastifyReply) => {
        const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const signature = firstHeader(request, "x-upstream-signature") ?? firstHeader(request, "x-kombo-signature");
        const querySecret = (request.query as { webhook_secret?: string | null }).webhook_secret ?? undefined;
        if (!isAuthentic(raw, { signature, querySecret }, deps.config.UPSTREAM_WEBHOOK_SECRET)) {
          const wait = unauthentic.hit(request.ip);
          if (wait)
            throw new AppError("RATE_LIMITED", `Too many unauthentic webhook deliveries; retry in ${wait} s`, {
              headers: { "retry-after": String(wait) },
            });
          throw new AppError("UNAUTHORIZED", "Invalid or missing webhook signature");
        }
        const order = parseOrder(raw, type);
        const decision = await takeOrder(intake, order.data, inline);
        if (!decision.accepted) return reply.status(422).send({ message: decision.message });
        if (inline) {
          if (!decision.interviewLink) throw new AppError("UNAVAILABLE", "The interview link is not ready; retry");
          return { assessment_url: decision.interviewLink };
        }
        return {
          received: true,
          processed: true,
          message: decision.duplicate
            ? `duplicate delivery of order ${decision.order.orderId}`
            : "accepted: candidate and interview created",
        };
      });
    }
  };
}
