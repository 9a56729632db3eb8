import { type Static, type TSchema, Type } from "@sinclair/typebox";
import { DateTime, Uuid } from "../common.js";
import { HEALTH_STATES, IntegrationHealthSchema, SyncRunSchema, WriteBackSchema } from "../proxy/webhooks.js";
import { OrNull, StringEnum } from "../recruiting/fields.js";
import { CandidateSchema } from "../recruiting/candidates.js";
import { InterviewSchema } from "../recruiting/interviews.js";
import { PositionSchema } from "../recruiting/positions.js";

/**
 * The events Hirebridge delivers to an organisation's webhook endpoints (docs/webhooks-out.md).
 * Each type names its `data`: the resource as the API answers it, plus the ids that locate it
 * when the resource itself does not carry them. A delivered body is `{ type, timestamp, data }`
 * (Standard Webhooks); the event id is the `webhook-id` header.
 */
const interviewData = Type.Object(
  { ...InterviewSchema.properties, position_id: Uuid({ description: "The candidate's position." }) },
  { title: "InterviewEventData" },
);
const writeBackData = Type.Object(
  { ...WriteBackSchema.properties, integration_id: Type.String({ description: "The integration the result was written to." }) },
  { title: "WriteBackEventData" },
);
const syncRunData = Type.Object(
  { ...SyncRunSchema.properties, integration_id: Type.String({ description: "The integration synced." }) },
  { title: "SyncRunEventData" },
);
const healthData = Type.Object(
  {
    integration_id: Type.String(),
    health: IntegrationHealthSchema,
    previous_state: StringEnum(HEALTH_STATES, { description: "The state before this change." }),
  },
  { title: "IntegrationHealthEventData" },
);
/** An assessment order's ids and status only: no personal data travels in these events (docs/assessments.md). */
const assessmentOrderData = Type.Object(
  {
    id: Uuid({ description: "Hirebridge's id of the order." }),
    integration_id: Type.String({ description: "The integration the order came from." }),
    order_id: Type.String({ description: "The upstream's id of the order." }),
    package_id: Uuid({ description: "The package ordered (a position in state `template`)." }),
    position_id: OrNull(Uuid()),
    candidate_id: OrNull(Uuid()),
    inline: Type.Boolean({ description: "Ordered from the career page (answered with the interview link)." }),
    status: StringEnum(["accepted", "rejected"] as const),
    result_status: StringEnum(["OPEN", "COMPLETED", "CANCELLED"] as const, { description: "The order's status upstream." }),
  },
  { title: "AssessmentOrderEventData" },
);

/** An erased candidate's ids only: the person's data is gone (docs/privacy.md, "Erasure"). */
const candidateErasedData = Type.Object(
  {
    id: Uuid({ description: "The erased candidate's id." }),
    position_id: Uuid({ description: "The candidate's position." }),
    upstream_application_id: OrNull(Type.String({ description: "The upstream application the candidate came from, if any." })),
    erased_at: DateTime({ description: "When the erasure committed." }),
  },
  { title: "CandidateErasedEventData" },
);

/** Every event type: its description and the schema of its `data`. Order is the catalogue's. */
export const EVENT_CATALOGUE = {
  "candidate.created": {
    description: "A candidate was created: through the API, or by the sync from an upstream application.",
    data: CandidateSchema,
  },
  "candidate.updated": {
    description:
      "A candidate changed: through the API, by the sync (the upstream application changed), or by its interview's grading (score, feedback, completed_at).",
    data: CandidateSchema,
  },
  "candidate.erased": {
    description:
      "A candidate was erased (through the API, or by the retention job): ids only. Erase the copies your systems keep; the ATS keeps its own copy of the application, which you erase there.",
    data: candidateErasedData,
  },
  "interview.updated": {
    description: "A candidate's interview record changed (the interview runner's report: status, times, score, links).",
    data: interviewData,
  },
  "position.created": {
    description: "A position was created: through the API, or by the sync from an upstream job.",
    data: PositionSchema,
  },
  "position.updated": {
    description: "A position changed: through the API, or by the sync (the upstream job changed).",
    data: PositionSchema,
  },
  "write_back.succeeded": {
    description: "An interview's result was written back to the ATS (stage moved, result link and note added).",
    data: writeBackData,
  },
  "write_back.failed": {
    description: "Writing an interview's result back to the ATS failed for good (`last_error` says why).",
    data: writeBackData,
  },
  "sync_run.finished": {
    description: "A sync run of an integration ended: succeeded, failed or cancelled (`state`, `last_error`).",
    data: syncRunData,
  },
  "sync_run.unchanged": {
    description:
      "Opt-in (delivered only to an endpoint that lists it in event_types): an incremental sync run succeeded and changed nothing (such as the upstream's echo of a write-back); it gets no sync_run.finished.",
    data: syncRunData,
  },
  "integration.health_changed": {
    description: "An integration's health moved between ok, degraded and broken (with the reason).",
    data: healthData,
  },
  "assessment_order.received": {
    description: "An assessment order placed in an ATS was accepted: its candidate and interview exist (ids and status only).",
    data: assessmentOrderData,
  },
  "assessment_order.completed": {
    description: "An assessment order's result was written to the order: COMPLETED or CANCELLED (ids and status only).",
    data: assessmentOrderData,
  },
} as const satisfies Record<string, { description: string; data: TSchema }>;

export type EventType = keyof typeof EVENT_CATALOGUE;
/** Types an endpoint receives only when it lists them: an endpoint of "every type" (empty event_types) does not. */
export const OPT_IN_EVENT_TYPES = ["sync_run.unchanged"] as const satisfies readonly EventType[];
/** SQL text: whether an endpoint's `event_types` (column expression `types`) takes events of type `type` (SQL expression). */
export const takesEventType = (types: string, type: string) =>
  `((${types} = '{}' and ${type} <> all(array[${OPT_IN_EVENT_TYPES.map((t) => `'${t}'`).join(", ")}]::text[])) or ${type} = any(${types}))`;
export const EVENT_TYPES = Object.keys(EVENT_CATALOGUE) as EventType[];
export type EventData<T extends EventType> = Static<(typeof EVENT_CATALOGUE)[T]["data"]>;

export const EventTypeSchema = Type.Unsafe<EventType>({ type: "string", enum: EVENT_TYPES, description: "An event type." });

/** The body of a delivery of `type` (what the receiver's signature covers, byte for byte). */
export const eventEnvelopeSchema = (type: EventType) =>
  Type.Object(
    {
      type: Type.Literal(type),
      timestamp: DateTime({ description: "When the change happened (its transaction's time)." }),
      data: EVENT_CATALOGUE[type].data,
    },
    { title: type },
  );

export const EventTypeInfoSchema = Type.Object(
  {
    type: EventTypeSchema,
    description: Type.String({ description: "What the event means (may hold inline markdown: `code`)." }),
    description_text: Type.String({
      description: "The description as plain text: no markdown nor HTML (what a terminal or a page shows).",
    }),
    schema: Type.Unknown({ description: "JSON Schema of the delivered body `{ type, timestamp, data }`." }),
  },
  { title: "WebhookEventType" },
);
export const EventTypeCatalogueSchema = Type.Object({ items: Type.Array(EventTypeInfoSchema) }, { title: "WebhookEventTypes" });
export type EventTypeCatalogue = Static<typeof EventTypeCatalogueSchema>;
