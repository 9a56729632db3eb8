import { type Static, Type } from "@sinclair/typebox";
import { DateTime, Nullable } from "../common.js";
import { StringEnum } from "./common.js";
import { WEBHOOK_EVENT_TYPES } from "../upstream/webhooks.js";

/**
 * The upstream's webhook events as Hirebridge stored them, and the re-drive of a failed one. An
 * event is `queued` until its work is done (`processed`), found nothing to do (`ignored`), or
 * failed for good (`failed`: retries ran out, or the event itself cannot be processed), with its
 * error; a failed event can be re-driven (queued again, its attempts kept).
 */
export const WEBHOOK_EVENT_STATUSES = ["queued", "processed", "failed", "ignored"] as const;
export type WebhookEventStatus = (typeof WEBHOOK_EVENT_STATUSES)[number];

export const WebhookEventRecordSchema = Type.Object(
  {
    id: Type.String({ description: "The upstream's event id (the deduplication key)." }),
    type: StringEnum(WEBHOOK_EVENT_TYPES),
    integration_id: Nullable(Type.String()),
    status: StringEnum(WEBHOOK_EVENT_STATUSES),
    message: Nullable(Type.String({ description: "What its work came to (for a failed event: why)." })),
    attempts: Type.Integer({ description: "Attempts of its work that failed." }),
    last_error: Nullable(Type.String({ description: "The error of the last failed attempt." })),
    received_at: DateTime(),
    processed_at: Nullable(DateTime({ description: "When it was settled (processed, ignored or failed)." })),
  },
  { title: "WebhookEventRecord" },
);
export type WebhookEventRecord = Static<typeof WebhookEventRecordSchema>;

export const WebhookEventListQuerySchema = Type.Object(
  {
    status: Type.Optional(StringEnum(WEBHOOK_EVENT_STATUSES, { description: "Only events in this status (default: failed)." })),
    integration_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "Only this integration's events." })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  },
  { description: "Unknown query parameters are ignored." },
);
export type WebhookEventListQuery = Static<typeof WebhookEventListQuerySchema>;

export const WebhookEventListSchema = Type.Object(
  { items: Type.Array(WebhookEventRecordSchema, { description: "The caller's organisation's events, newest first." }) },
  { title: "WebhookEventList" },
);
export type WebhookEventList = Static<typeof WebhookEventListSchema>;

export const WebhookEventParamsSchema = Type.Object({ event_id: Type.String({ minLength: 1, maxLength: 200 }) });
