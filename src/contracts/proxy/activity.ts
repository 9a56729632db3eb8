import { type Static, Type } from "@sinclair/typebox";
import { DateTime, Nullable, Uuid } from "../common.js";
import { AssessmentOrderSchema } from "./assessment-orders.js";
import { StringEnum } from "./common.js";
import { SyncRunEntrySchema, WriteBackSchema } from "./webhooks.js";

/** An integration's trail: webhook events, sync runs, write-backs, failed upstream calls and assessment orders, newest first. */

export const ACTIVITY_KINDS = ["event", "sync_run", "write_back", "upstream_call", "assessment_order"] as const;
export type ActivityKind = (typeof ACTIVITY_KINDS)[number];

/** Every status an item can have: an event's, a sync run's, a write-back's, an assessment order's; a failed upstream call is `failed`. */
export const ACTIVITY_STATUSES = [
  "queued",
  "processed",
  "ignored",
  "running",
  "succeeded",
  "cancelled",
  "pending",
  "paused",
  "done",
  "failed",
  "accepted",
  "rejected",
] as const;
export type ActivityStatus = (typeof ACTIVITY_STATUSES)[number];

/** A comma-separated list of values of `values`, e.g. `event,write_back`. */
const CsvOf = (values: readonly string[], description: string) =>
  Type.String({ pattern: `^(${values.join("|")})(,(${values.join("|")}))*$`, description, maxLength: 200 });

export const ActivityQuerySchema = Type.Object(
  {
    kind: Type.Optional(CsvOf(ACTIVITY_KINDS, `Only these kinds, comma-separated: ${ACTIVITY_KINDS.join(", ")}.`)),
    status: Type.Optional(CsvOf(ACTIVITY_STATUSES, "Only items in these states, comma-separated (e.g. `failed`).")),
    since: Type.Optional(DateTime({ description: "Only items from this time on (inclusive)." })),
    until: Type.Optional(DateTime({ description: "Only items before this time." })),
    candidate_id: Type.Optional(
      Uuid({ description: "A candidate's trail: its assessment order, write-backs and their failed upstream calls." }),
    ),
    position_id: Type.Optional(
      Uuid({ description: "A position's trail: its candidates' assessment orders, write-backs and their failed upstream calls." }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50, description: "Items per page." })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 400, description: "`next_cursor` of the previous page (opaque)." })),
  },
  { description: "Unknown query parameters are ignored." },
);
export type ActivityQuery = Static<typeof ActivityQuerySchema>;

const Named = Type.Object({ id: Uuid(), name: Nullable(Type.String()) });

export const ActivityEventSchema = Type.Object(
  {
    type: Type.String({ description: "The upstream's event kind (data-changed, integration-state-changed, …)." }),
    message: Nullable(Type.String({ description: "What its work did, or why there was nothing to do." })),
    received_at: DateTime(),
    processed_at: Nullable(DateTime()),
  },
  { title: "ActivityEvent" },
);

export const ActivityUpstreamCallSchema = Type.Object(
  {
    source: StringEnum(["proxy", "sync", "write-back"] as const, {
      description: "proxy: a caller's request through the proxy; sync: the sync engine; write-back: a write-back job.",
    }),
    operation: Type.String({ description: "The call without ids, e.g. `GET /ats/jobs`." }),
    upstream_status: Nullable(Type.Integer({ description: "The upstream's HTTP status; null when it never answered." })),
    count: Type.Integer({ description: "How many times it failed within a few seconds (recorded once)." }),
    last_at: DateTime(),
    request_id: Nullable(Type.String()),
    write_back_id: Nullable(Uuid()),
  },
  { title: "ActivityUpstreamCall" },
);

export const ActivityItemSchema = Type.Object(
  {
    kind: StringEnum(ACTIVITY_KINDS),
    id: Type.String(),
    at: DateTime({ description: "When it happened: an event's receipt, a run's or a write-back's creation, a call's first failure." }),
    status: StringEnum(ACTIVITY_STATUSES),
    summary: Type.String({ description: "One line for people, with the names of what it touched." }),
    count: Type.Integer({
      minimum: 1,
      description:
        "How many identical consecutive events this row stands for (same type, status, line and error; within one page): the newest is shown. 1 for every other item.",
    }),
    error: Nullable(Type.String()),
    attempts: Nullable(Type.Integer({ description: "Attempts at its work (events, write-backs) or failures counted (upstream calls)." })),
    retryable: Type.Boolean({
      description:
        "A failed write-back (`POST /integrations/{id}/write-backs/{id}/retry`) or event (`POST /webhooks/events/{id}/redrive`).",
    }),
    candidate: Nullable(Named),
    position: Nullable(Named),
    event: Type.Optional(ActivityEventSchema),
    sync_run: Type.Optional(SyncRunEntrySchema),
    write_back: Type.Optional(WriteBackSchema),
    upstream_call: Type.Optional(ActivityUpstreamCallSchema),
    assessment_order: Type.Optional(AssessmentOrderSchema),
  },
  { title: "ActivityItem", description: "One entry of the trail; the object named by `kind` holds its details." },
);
export type ActivityItem = Static<typeof ActivityItemSchema>;

export const ActivityPageSchema = Type.Object(
  {
    integration: Type.Object({ id: Type.String(), display_name: Type.String() }),
    items: Type.Array(ActivityItemSchema),
    next_cursor: Nullable(Type.String(), { description: "Cursor of the next (older) page; null on the last one." }),
  },
  { title: "ActivityPage" },
);
export type ActivityPage = Static<typeof ActivityPageSchema>;

export const WriteBackParamsSchema = Type.Object({ integration_id: Type.String(), write_back_id: Uuid() });
export type WriteBackParams = Static<typeof WriteBackParamsSchema>;
