import { type Static, Type } from "@sinclair/typebox";
import { DateTime, Uuid } from "../common.js";
import { AuditEntrySchema } from "./audit-log.js";
import { CandidateSchema } from "./candidates.js";
import { OrNull } from "./fields.js";
import { InterviewSchema } from "./interviews.js";

/**
 * `GET /org/{org_id}/positions/{position_id}/candidates/{candidate_id}/export`: everything
 * Hirebridge holds about one candidate, as one JSON document, for a data subject access request
 * (GDPR Art. 15 and 20; docs/privacy.md, "Export"). Each list is oldest first.
 */

const Time = (description: string) => DateTime({ description });
const NullableTime = (description: string) => OrNull(DateTime(), { description });
const NullableText = (description: string) => OrNull(Type.String(), { description });

/** One grading or correction of the interview, as the audit log recorded it (who or what, score before and after). */
export const ExportGradingSchema = Type.Object(
  {
    action: Type.String({ description: "`interview.graded` or `interview.corrected`." }),
    occurred_at: Time("When it was recorded."),
    actor: AuditEntrySchema.properties.actor,
    score_before: OrNull(Type.Number(), { description: "The score before (null when there was none)." }),
    score_after: OrNull(Type.Number(), { description: "The score after." }),
  },
  { additionalProperties: false, title: "CandidateExportGrading" },
);

/** A result written back to the ATS: each step's time, its attempts and what the note said it was. */
export const ExportWriteBackSchema = Type.Object(
  {
    id: Uuid(),
    integration_id: Type.String(),
    application_id: Type.String({ description: "The upstream application written to." }),
    interview_id: Uuid(),
    outcome: Type.String({ description: "`passed`, `rejected` or `needs_review`: what the note says of the candidate." }),
    target_stage: NullableText("The stage the application was to move to (as the position maps it)."),
    target_stage_name: NullableText("The upstream stage's name when the write-back resolved it."),
    candidate_name: NullableText("The candidate's name as written in the history."),
    position_name: NullableText("The position's name as written in the history."),
    correction_reason: NullableText("Why the result was corrected (said in the note); null for a first result."),
    assessment_order_id: NullableText("The assessment order the result went to, when it was one."),
    state: Type.String({ description: "`pending`, `done`, `failed` or `paused`." }),
    attempts: Type.Integer({ description: "Attempts made." }),
    last_error: NullableText("The last attempt's error."),
    stage_moved_at: NullableTime("When the application was moved."),
    link_added_at: NullableTime("When the result link was added."),
    note_added_at: NullableTime("When the note was added."),
    created_at: Time("When it was made."),
    updated_at: Time("Its last change."),
  },
  { additionalProperties: false, title: "CandidateExportWriteBack" },
);

/** A failed upstream call of one of the candidate's write-backs (the activity trail's `upstream_call` entries). */
export const ExportUpstreamCallSchema = Type.Object(
  {
    id: Uuid(),
    integration_id: Type.String(),
    write_back_id: OrNull(Uuid()),
    operation: Type.String({ description: "The call without ids, e.g. `POST /ats/applications/{id}/notes`." }),
    upstream_status: OrNull(Type.Integer(), { description: "The upstream's HTTP status; null when it never answered." }),
    error: Type.String(),
    count: Type.Integer({ description: "How many times it failed alike." }),
    created_at: Time("The first failure."),
    last_at: Time("The last failure."),
  },
  { additionalProperties: false, title: "CandidateExportUpstreamCall" },
);

/** A stored inbound webhook event (from the unified API) whose payload names the candidate or their application. */
export const ExportInboundEventSchema = Type.Object(
  {
    id: Type.String(),
    type: Type.String(),
    integration_id: NullableText("The integration it came for."),
    status: Type.String({ description: "`queued`, `processed`, `failed` or `ignored`." }),
    received_at: Time("When it was received."),
    processed_at: NullableTime("When its work was done."),
    payload: Type.Unknown({ description: "The event as stored." }),
  },
  { additionalProperties: false, title: "CandidateExportInboundEvent" },
);

/** An outbound event (to the organisation's webhook endpoints) whose data names the candidate, with its deliveries. */
export const ExportOutboundEventSchema = Type.Object(
  {
    id: Uuid(),
    type: Type.String({ description: "e.g. `candidate.created`, `interview.graded`, `write_back.settled`." }),
    created_at: Time("When it was recorded."),
    data: Type.Unknown({ description: "The event's data as delivered." }),
    deliveries: Type.Array(
      Type.Object(
        {
          endpoint_id: Uuid(),
          attempts: Type.Integer({ description: "Attempts made so far." }),
          next_attempt_at: Time("When the next attempt is due (when not delivered yet)."),
        },
        { additionalProperties: false },
      ),
      { description: "Deliveries still scheduled." },
    ),
    attempts: Type.Array(
      Type.Object(
        {
          endpoint_id: Uuid(),
          attempt: Type.Integer(),
          attempted_at: Time("When it was sent."),
          status_code: OrNull(Type.Integer(), { description: "The endpoint's HTTP status; null when none came." }),
          ok: Type.Boolean(),
          error: NullableText("Why it failed."),
          response: NullableText("The first bytes of the endpoint's answer."),
        },
        { additionalProperties: false },
      ),
      { description: "Every delivery attempt, oldest first." },
    ),
  },
  { additionalProperties: false, title: "CandidateExportOutboundEvent" },
);

/** The upstream assessment order the candidate came from (docs/assessments.md). */
export const ExportAssessmentOrderSchema = Type.Object(
  {
    id: Uuid(),
    integration_id: Type.String(),
    order_id: Type.String(),
    package_id: Type.String(),
    inline: Type.Boolean(),
    status: Type.String({ description: "`accepted` or `rejected`." }),
    result_status: Type.String({ description: "`OPEN`, `COMPLETED` or `CANCELLED`." }),
    message: NullableText("Why it was rejected."),
    created_at: Time("When it was received."),
    updated_at: Time("Its last change."),
  },
  { additionalProperties: false, title: "CandidateExportAssessmentOrder" },
);

export const CandidateExportSchema = Type.Object(
  {
    exported_at: Time("When the document was made: it holds what was stored at that moment."),
    organization_id: Uuid(),
    position: Type.Object(
      { id: Uuid(), name: Type.String({ description: "The position the candidate applied to." }) },
      { additionalProperties: false },
    ),
    candidate: CandidateSchema,
    interview: OrNull(InterviewSchema, { description: "The candidate's interview (null when there is none)." }),
    grading_history: Type.Array(ExportGradingSchema, { description: "Every grading and correction of the interview, oldest first." }),
    write_backs: Type.Array(ExportWriteBackSchema, { description: "Results written back to the ATS (the history and its notes)." }),
    upstream_calls: Type.Array(ExportUpstreamCallSchema, { description: "Failed upstream calls of those write-backs." }),
    inbound_events: Type.Array(ExportInboundEventSchema, {
      description: "Stored inbound webhook events naming the candidate's id or upstream application.",
    }),
    outbound_events: Type.Array(ExportOutboundEventSchema, {
      description: "Outbound events naming the candidate's id, with their deliveries.",
    }),
    assessment_order: OrNull(ExportAssessmentOrderSchema, { description: "The assessment order the candidate came from, if any." }),
    audit_entries: Type.Array(AuditEntrySchema, {
      description: "The audit log's entries naming the candidate or their interview (ids and the actor only), oldest first.",
    }),
  },
  { additionalProperties: false, title: "CandidateExport" },
);
export type CandidateExport = Static<typeof CandidateExportSchema>;
