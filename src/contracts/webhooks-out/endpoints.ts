import { type Static, type TSchema, Type } from "@sinclair/typebox";
import { DateTime, Nullable, Uuid, withDescription, ErrorDetailSchema } from "../common.js";
import { errorResponses } from "../recruiting/fields.js";
import { EventTypeSchema } from "./events.js";

/** The largest endpoint URL accepted (Svix's limit; longer ones are almost always a mistake). */
export const ENDPOINT_URL_MAX = 2000;

const orgId = Uuid({ description: "Organization id; must equal the token's org_id." });
export const EndpointParamsSchema = Type.Object({ org_id: orgId, endpoint_id: Uuid({ description: "Webhook endpoint id." }) });
export type EndpointParams = Static<typeof EndpointParamsSchema>;
export const DeliveryParamsSchema = Type.Object({
  org_id: orgId,
  endpoint_id: Uuid({ description: "Webhook endpoint id." }),
  message_id: Uuid({ description: "The event's id (its `webhook-id`)." }),
});
export type DeliveryParams = Static<typeof DeliveryParamsSchema>;
export const MessageParamsSchema = Type.Object({ org_id: orgId, message_id: Uuid({ description: "The event's id (its `webhook-id`)." }) });

const fields = {
  url: Type.String({
    minLength: 1,
    maxLength: ENDPOINT_URL_MAX,
    description:
      "Where events are POSTed. HTTPS, and an address on the public internet, outside the embedded default (which also allows http and loopback addresses).",
  }),
  description: Type.String({ maxLength: 500, description: "What the endpoint is for (free text)." }),
  event_types: Type.Array(EventTypeSchema, {
    uniqueItems: true,
    description: "The event types delivered to it; empty or absent: all of them (GET /webhook-event-types lists them).",
  }),
  disabled: Type.Boolean({ description: "A disabled endpoint receives nothing, and its retries wait until it is enabled again." }),
};

export const WebhookEndpointCreateSchema = Type.Object(
  {
    url: fields.url,
    description: Type.Optional(fields.description),
    event_types: Type.Optional(fields.event_types),
    disabled: Type.Optional(fields.disabled),
    temporary: Type.Optional(
      Type.Boolean({
        description:
          "A temporary endpoint (what `hirebridge webhooks listen` creates): deleted by itself once nothing kept it alive (POST …/keep-alive) for WEBHOOK_TEMP_ENDPOINT_IDLE_MINUTES (default 60). Its `expires_at` says when.",
      }),
    ),
  },
  { additionalProperties: false, title: "WebhookEndpointCreate" },
);
export type WebhookEndpointCreate = Static<typeof WebhookEndpointCreateSchema>;

export const WebhookEndpointUpdateSchema = Type.Object(
  {
    url: Type.Optional(fields.url),
    description: Type.Optional(fields.description),
    event_types: Type.Optional(fields.event_types),
    disabled: Type.Optional(
      withDescription(fields.disabled, "true disables it; false enables it again (and clears why Hirebridge disabled it)."),
    ),
  },
  { additionalProperties: false, title: "WebhookEndpointUpdate" },
);
export type WebhookEndpointUpdate = Static<typeof WebhookEndpointUpdateSchema>;

export const WebhookEndpointSchema = Type.Object(
  {
    id: Uuid(),
    url: Type.String(),
    description: Type.String(),
    event_types: Type.Array(EventTypeSchema, { description: "Empty: every event type." }),
    disabled: Type.Boolean(),
    disabled_reason: Nullable(Type.String(), {
      description: "Why Hirebridge disabled it (sustained failure, or the endpoint answered 410 Gone); null otherwise.",
    }),
    failing_since: Nullable(DateTime(), { description: "Since when every attempt failed; null when the last one succeeded." }),
    previous_secret_expires_at: Nullable(DateTime(), {
      description: "Until when deliveries are also signed with the secret before the last rotation.",
    }),
    expires_at: Nullable(DateTime(), {
      description:
        "A temporary endpoint: when it is deleted unless kept alive before (POST …/keep-alive moves it on); null for an endpoint that stays.",
    }),
    created_at: DateTime(),
    updated_at: DateTime(),
  },
  { additionalProperties: false, title: "WebhookEndpoint" },
);
export type WebhookEndpoint = Static<typeof WebhookEndpointSchema>;

const SecretSchema = Type.String({
  pattern: "^whsec_[A-Za-z0-9+/]+={0,2}$",
  description: "The signing secret (`whsec_` + base64 of 32 random bytes). Shown only in this answer: store it now.",
});

export const WebhookEndpointCreatedSchema = Type.Object(
  { ...WebhookEndpointSchema.properties, secret: SecretSchema },
  { additionalProperties: false, title: "WebhookEndpointCreated" },
);
export type WebhookEndpointCreated = Static<typeof WebhookEndpointCreatedSchema>;

export const WebhookEndpointListSchema = Type.Object({ items: Type.Array(WebhookEndpointSchema) }, { title: "WebhookEndpointList" });
export type WebhookEndpointList = Static<typeof WebhookEndpointListSchema>;

export const SecretRotationSchema = Type.Object(
  {
    secret: SecretSchema,
    previous_secret_expires_at: DateTime({ description: "Until then every delivery carries a signature with the old secret too." }),
  },
  { additionalProperties: false, title: "WebhookSecretRotation" },
);
export type SecretRotation = Static<typeof SecretRotationSchema>;

export const WebhookAttemptSchema = Type.Object(
  {
    attempt: Type.Integer({ minimum: 1, description: "1 for the first attempt at this message to this endpoint." }),
    attempted_at: DateTime(),
    status_code: Nullable(Type.Integer(), { description: "The HTTP status answered; null when none came (see `error`)." }),
    ok: Type.Boolean({ description: "A 2xx answer." }),
    latency_ms: Type.Integer(),
    error: Nullable(Type.String(), { description: "Why no answer came: timeout, connection refused, address refused…" }),
    response: Nullable(Type.String(), { description: "The first kilobyte of the answer's body." }),
    manual: Type.Boolean({ description: "A re-send someone asked for, rather than the schedule." }),
    request_headers: Nullable(Type.Record(Type.String(), Type.String()), {
      description:
        "The headers this attempt was sent with (content-type, user-agent, webhook-id, webhook-timestamp, webhook-signature); null for an attempt recorded before they were kept.",
    }),
  },
  { additionalProperties: false, title: "WebhookAttempt" },
);
export type WebhookAttempt = Static<typeof WebhookAttemptSchema>;

export const DELIVERY_STATUSES = ["pending", "succeeded", "failed"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
const DeliveryStatusSchema = Type.Unsafe<DeliveryStatus>({
  type: "string",
  enum: [...DELIVERY_STATUSES],
  description: "succeeded: the last attempt got a 2xx; failed: the schedule ran out without one; pending: an attempt is to come.",
});

export const WebhookDeliverySchema = Type.Object(
  {
    message_id: Uuid({ description: "The event's id: its `webhook-id`, the same on every attempt." }),
    webhook_id: Uuid({ description: "The `webhook-id` header every attempt carried (the event's id, as `message_id`)." }),
    type: EventTypeSchema,
    timestamp: DateTime({ description: "When the event happened." }),
    test: Type.Boolean({ description: "A test event (POST …/test): an example, sent to this endpoint only." }),
    payload: Type.Unknown({
      description:
        "The body every attempt sent, parsed: `{ type, timestamp, data }` (and `test: true` for a test event). The signature covers its bytes as sent; GET /webhook-messages/{id} has the same event.",
    }),
    status: DeliveryStatusSchema,
    next_attempt_at: Nullable(DateTime()),
    attempts: Type.Array(WebhookAttemptSchema, { description: "Newest first." }),
  },
  { additionalProperties: false, title: "WebhookDelivery" },
);
export type WebhookDelivery = Static<typeof WebhookDeliverySchema>;

export const DeliveryListQuerySchema = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "`next_cursor` of the previous page." })),
  status: Type.Optional(DeliveryStatusSchema),
});
export type DeliveryListQuery = Static<typeof DeliveryListQuerySchema>;

export const WebhookDeliveryListSchema = Type.Object(
  {
    items: Type.Array(WebhookDeliverySchema, { description: "Newest event first." }),
    next_cursor: Nullable(Type.String()),
  },
  { title: "WebhookDeliveryList" },
);
export type WebhookDeliveryList = Static<typeof WebhookDeliveryListSchema>;

export const WebhookMessageSchema = Type.Object(
  {
    id: Uuid({ description: "The event's id (its `webhook-id`)." }),
    type: EventTypeSchema,
    timestamp: DateTime(),
    test: Type.Boolean({ description: "A test event (POST …/webhook-endpoints/{id}/test): an example, not a change." }),
    data: Type.Unknown({ description: "As delivered (GET /webhook-event-types has each type's schema)." }),
  },
  { additionalProperties: false, title: "WebhookMessage" },
);
export type WebhookMessage = Static<typeof WebhookMessageSchema>;

export const ResendAnswerSchema = Type.Object(
  { message_id: Uuid(), endpoint_id: Uuid(), next_attempt_at: DateTime() },
  { additionalProperties: false, title: "WebhookResend" },
);
export type ResendAnswer = Static<typeof ResendAnswerSchema>;

export const TestEventRequestSchema = Type.Object(
  { event_type: withDescription(EventTypeSchema, "The type of the example event (GET /webhook-event-types lists them).") },
  { additionalProperties: false, title: "WebhookTestEventRequest" },
);
export type TestEventRequest = Static<typeof TestEventRequestSchema>;

export const TestEventAnswerSchema = Type.Object(
  {
    message_id: Uuid({ description: "The test event's id: its `webhook-id` (its delivery is listed under it)." }),
    endpoint_id: Uuid(),
    type: EventTypeSchema,
    test: Type.Literal(true),
  },
  { additionalProperties: false, title: "WebhookTestEvent" },
);
export type TestEventAnswer = Static<typeof TestEventAnswerSchema>;

export const ResendFailedRequestSchema = Type.Object(
  {
    since: DateTime({ description: "Events from this time on (their `timestamp`) whose delivery to the endpoint failed are sent again." }),
  },
  { additionalProperties: false, title: "WebhookResendFailedRequest" },
);
export type ResendFailedRequest = Static<typeof ResendFailedRequestSchema>;

export const ResendFailedAnswerSchema = Type.Object(
  {
    endpoint_id: Uuid(),
    since: DateTime(),
    queued: Type.Integer({ minimum: 0, description: "How many failed deliveries were queued again (each due now)." }),
  },
  { additionalProperties: false, title: "WebhookResendFailed" },
);
export type ResendFailedAnswer = Static<typeof ResendFailedAnswerSchema>;

const errors = {
  401: errorResponses[401],
  403: errorResponses[403],
  404: withDescription(ErrorDetailSchema, "No such endpoint (or event) in this organization"),
  422: errorResponses[422],
};

/** A route's answers: `ok` with `status` (200 unless said), and the errors these routes answer. */
export const endpointResponses = <S extends TSchema, C extends 200 | 202 | 204 = 200>(ok: S, status: C = 200 as C) =>
  ({ [status]: ok, ...errors }) as Record<C, S> & typeof errors;
