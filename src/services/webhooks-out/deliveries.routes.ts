import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { errorResponses } from "../../contracts/recruiting/fields.js";
import {
  DeliveryListQuerySchema,
  DeliveryParamsSchema,
  EndpointParamsSchema,
  endpointResponses,
  MessageParamsSchema,
  ResendAnswerSchema,
  WebhookDeliveryListSchema,
  WebhookMessageSchema,
} from "../../contracts/webhooks-out/endpoints.js";
import { callerOrg } from "../../shared/auth/caller-org.js";
import { conflict, notFound, validationError } from "../../shared/errors.js";
import type { WebhooksOutContext } from "./context.js";
import { findMessage, listDeliveries, queueResend } from "./deliveries.repository.js";
import { findEndpoint } from "./endpoints.repository.js";

const common = { tags: ["webhook endpoints"], security: [{ bearer: [] }] };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An endpoint's deliveries with their attempts, an event as delivered, and re-sending one. */
export const deliveryRoutes: FastifyPluginAsyncTypebox<{ ctx: WebhooksOutContext }> = async (app, { ctx }) => {
  app.get(
    "/org/:org_id/webhook-endpoints/:endpoint_id/deliveries",
    {
      schema: {
        ...common,
        summary: "List a webhook endpoint's deliveries",
        description:
          "The events delivered (or being delivered) to the endpoint, newest first, each with its status and every attempt: when, the HTTP status or the error, how long it took, and the start of the answer.",
        params: EndpointParamsSchema,
        querystring: DeliveryListQuerySchema,
        response: endpointResponses(WebhookDeliveryListSchema),
      },
    },
    async (request) => {
      const org = callerOrg(request);
      const { limit = 20, cursor, status } = request.query;
      if (cursor !== undefined && !UUID.test(cursor)) {
        throw validationError([{ loc: ["query", "cursor"], msg: "Invalid cursor", type: "value_error" }]);
      }
      if (!(await findEndpoint(ctx.db, org, request.params.endpoint_id))) throw notFound("Webhook endpoint not found");
      const page = await listDeliveries(ctx.database, org, request.params.endpoint_id, {
        limit,
        before: cursor ?? null,
        status: status ?? null,
      });
      return { items: page.items, next_cursor: page.next };
    },
  );

  app.post(
    "/org/:org_id/webhook-endpoints/:endpoint_id/deliveries/:message_id/resend",
    {
      schema: {
        ...common,
        summary: "Re-send an event to a webhook endpoint",
        description:
          "Delivers the event again, now, with the same `webhook-id` (receivers deduplicate on it); a failure is retried on the schedule. Any event of the organization can be sent to any of its enabled endpoints.",
        params: DeliveryParamsSchema,
        response: { ...endpointResponses(ResendAnswerSchema, 202), 409: errorResponses[409] },
      },
    },
    async (request, reply) => {
      const { endpoint_id, message_id } = request.params;
      const due = await queueResend(ctx.database, callerOrg(request), endpoint_id, message_id);
      if (due === null) throw notFound("Webhook endpoint or event not found");
      if (due === "disabled") throw conflict("The endpoint is disabled: enable it first");
      ctx.wake();
      return reply.code(202).send({ message_id, endpoint_id, next_attempt_at: due.toISOString() });
    },
  );

  app.get(
    "/org/:org_id/webhook-messages/:message_id",
    {
      schema: {
        ...common,
        summary: "Get an event as delivered",
        description: "The event's type, time and data, as its deliveries carry them.",
        params: MessageParamsSchema,
        response: endpointResponses(WebhookMessageSchema),
      },
    },
    async (request) => {
      const message = await findMessage(ctx.database, callerOrg(request), request.params.message_id);
      if (!message) throw notFound("Event not found");
      return message;
    },
  );
};
