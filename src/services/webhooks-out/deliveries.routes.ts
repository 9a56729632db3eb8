import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { errorResponses } from "../../contracts/recruiting/fields.js";
import {
  DeliveryListQuerySchema,
  DeliveryParamsSchema,
  EndpointParamsSchema,
  endpointResponses,
  MessageParamsSchema,
  ResendAnswerSchema,
  ResendFailedAnswerSchema,
  ResendFailedRequestSchema,
  TestEventAnswerSchema,
  TestEventRequestSchema,
  WebhookDeliveryListSchema,
  WebhookDeliverySchema,
  WebhookMessageSchema,
} from "../../contracts/webhooks-out/endpoints.js";
import { callerOrg } from "../../shared/auth/caller-org.js";
import { conflict, notFound, validationError } from "../../shared/errors.js";
import type { WebhooksOutContext } from "./context.js";
import { findDelivery, findMessage, insertTestEvent, listDeliveries, queueResend, queueResendFailed } from "./deliveries.repository.js";
import { findEndpoint } from "./endpoints.repository.js";
import { exampleData } from "./examples.js";

const common = { tags: ["webhook endpoints"], security: [{ bearer: [] }] };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The app a Typebox plugin is given. */
type RouteApp = Parameters<FastifyPluginAsyncTypebox>[0];

/** An endpoint's deliveries: the list, and one delivery with its attempts. */
function registerDeliveryReads(app: RouteApp, ctx: WebhooksOutContext): void {
  app.get(
    "/org/:org_id/webhook-endpoints/:endpoint_id/deliveries",
    {
      schema: {
        ...common,
        summary: "List a webhook endpoint's deliveries",
        description:
          "The events delivered (or being delivered) to the endpoint, newest first (keyset pages: `limit`, then `cursor` = the answer's `next_cursor`; `status` keeps pending, succeeded or failed ones), each with its `webhook-id`, the payload sent, its status and every attempt: when, the headers sent, the HTTP status or the error, how long it took, and the start of the answer.",
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

  app.get(
    "/org/:org_id/webhook-endpoints/:endpoint_id/deliveries/:message_id",
    {
      schema: {
        ...common,
        summary: "Get one delivery of a webhook endpoint",
        description:
          "One event's delivery to the endpoint: its `webhook-id`, the payload every attempt sent, its status, and each attempt with the headers it was sent with (the signature included) and the start of the answer.",
        params: DeliveryParamsSchema,
        response: endpointResponses(WebhookDeliverySchema),
      },
    },
    async (request) => {
      const { endpoint_id, message_id } = request.params;
      const delivery = await findDelivery(ctx.database, callerOrg(request), endpoint_id, message_id);
      if (!delivery) throw notFound("No delivery of this event to this webhook endpoint");
      return delivery;
    },
  );
}

/** Re-sending one event to an endpoint. */
function registerResend(app: RouteApp, ctx: WebhooksOutContext): void {
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
}

/** Sending an example event of a type to one endpoint. */
function registerTestEvent(app: RouteApp, ctx: WebhooksOutContext): void {
  app.post(
    "/org/:org_id/webhook-endpoints/:endpoint_id/test",
    {
      schema: {
        ...common,
        summary: "Send a test event to a webhook endpoint",
        description:
          "Sends an example event of `event_type` to this endpoint only (whatever types it subscribes to), signed and delivered like any event: its delivery and attempts are listed with the others, retried on the schedule when it fails. Its body carries `test: true` after `data`, and its data is an example (fixed ids, not a record of yours). As the Stripe CLI's `trigger`: `hirebridge webhooks trigger <type> --endpoint <id>`.",
        params: EndpointParamsSchema,
        body: TestEventRequestSchema,
        response: { ...endpointResponses(TestEventAnswerSchema, 202), 409: errorResponses[409] },
      },
    },
    async (request, reply) => {
      const { endpoint_id } = request.params;
      const type = request.body.event_type;
      const id = await insertTestEvent(ctx.database, callerOrg(request), endpoint_id, type, exampleData(type));
      if (id === null) throw notFound("Webhook endpoint not found");
      if (id === "disabled") throw conflict("The endpoint is disabled: enable it first (PATCH disabled: false)");
      ctx.wake();
      return reply.code(202).send({ message_id: id, endpoint_id, type, test: true as const });
    },
  );
}

/** Queueing again an endpoint's failed deliveries since a time. */
function registerResendFailed(app: RouteApp, ctx: WebhooksOutContext): void {
  app.post(
    "/org/:org_id/webhook-endpoints/:endpoint_id/resend-failed",
    {
      schema: {
        ...common,
        summary: "Re-send every failed delivery to a webhook endpoint since a time",
        description:
          "Queues again, due now, each delivery to this endpoint that failed (its schedule ran out without a 2xx) of the events since `since`, with their `webhook-id`s (receivers deduplicate on them); each starts the retry schedule again. Answers how many were queued. Events older than WEBHOOK_RETENTION_DAYS are gone and not sent.",
        params: EndpointParamsSchema,
        body: ResendFailedRequestSchema,
        response: { ...endpointResponses(ResendFailedAnswerSchema, 202), 409: errorResponses[409] },
      },
    },
    async (request, reply) => {
      const { endpoint_id } = request.params;
      const since = new Date(request.body.since);
      if (Number.isNaN(since.getTime())) {
        throw validationError([{ loc: ["body", "since"], msg: "Invalid date-time", type: "value_error.datetime" }]);
      }
      const queued = await queueResendFailed(ctx.database, callerOrg(request), endpoint_id, since);
      if (queued === null) throw notFound("Webhook endpoint not found");
      if (queued === "disabled") throw conflict("The endpoint is disabled: enable it first (PATCH disabled: false)");
      if (queued > 0) ctx.wake();
      return reply.code(202).send({ endpoint_id, since: since.toISOString(), queued });
    },
  );
}

/** An event as delivered. */
function registerMessageRead(app: RouteApp, ctx: WebhooksOutContext): void {
  app.get(
    "/org/:org_id/webhook-messages/:message_id",
    {
      schema: {
        ...common,
        summary: "Get an event as delivered",
        description: "The event's type, time and data, as its deliveries carry them, and whether it is a test event.",
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
}

/** An endpoint's deliveries with their attempts, an event as delivered, and re-sending one. */
export const deliveryRoutes: FastifyPluginAsyncTypebox<{ ctx: WebhooksOutContext }> = async (app, { ctx }) => {
  registerDeliveryReads(app, ctx);
  registerResend(app, ctx);
  registerTestEvent(app, ctx);
  registerResendFailed(app, ctx);
  registerMessageRead(app, ctx);
};
