import { type Static, Type } from "@sinclair/typebox";
import { DateTime, HttpUrl, Int32, Uuid } from "../common.js";
import { OrNull, readOnly, StringEnum } from "./fields.js";

export const POSITION_STATES = ["active", "draft", "inactive", "template"] as const;
export type PositionState = (typeof POSITION_STATES)[number];
export const PositionStateSchema = StringEnum(POSITION_STATES, { description: "Lifecycle of the position." });

const stage = (what: string) =>
  OrNull(Type.String({ maxLength: 200 }), {
    description: `Upstream stage (id or name, matched by id first, then by name, case-insensitively) ${what}.`,
  });

/** Every writable field of a position, with the spec's constraints. */
const positionFields = {
  name: Type.String({ minLength: 1, maxLength: 100 }),
  state: PositionStateSchema,
  department: OrNull(Type.String({ maxLength: 100 })),
  location: OrNull(Type.String({ maxLength: 100 })),
  min_score: Int32({ description: "Interview score at or above which a candidate passes." }),
  role_description: OrNull(Type.String({ maxLength: 500 })),
  position_calender_link: OrNull(HttpUrl({ maxLength: 500 })),
  accepted_languages: Type.Array(Type.String(), { description: "Interview languages offered." }),
  agent_id: Type.String({ minLength: 1, maxLength: 255, description: "Interview agent that runs this position's interviews." }),
  candidate_stage: stage("whose applications become candidates"),
  passed_stage: stage("an application moves to when its interview passes"),
  rejected_stage: stage("an application moves to when its interview fails"),
  needs_reviewed_stage: stage("an application moves to when its interview needs a human review"),
  auto_update_stages: Type.Boolean({ description: "Move applications upstream when their interview ends." }),
  upstream_job_id_id: OrNull(Type.String({ maxLength: 100 }), { description: "Link to an upstream job." }),
  upstream_integration_id: OrNull(Type.String({ maxLength: 100 }), { description: "Link to an upstream integration." }),
};

const readOnlyFields = {
  id: readOnly(Uuid()),
  created_at: readOnly(DateTime()),
  updated_at: readOnly(DateTime()),
};

/** POST body: `name` is required; `state` defaults to draft, `accepted_languages` to [], `auto_update_stages` to false. */
export const PositionCreateSchema = Type.Object(
  {
    name: positionFields.name,
    state: Type.Optional(PositionStateSchema),
    department: Type.Optional(positionFields.department),
    location: Type.Optional(positionFields.location),
    min_score: Type.Optional(positionFields.min_score),
    role_description: Type.Optional(positionFields.role_description),
    position_calender_link: Type.Optional(positionFields.position_calender_link),
    accepted_languages: Type.Optional(positionFields.accepted_languages),
    agent_id: Type.Optional(positionFields.agent_id),
    candidate_stage: Type.Optional(positionFields.candidate_stage),
    passed_stage: Type.Optional(positionFields.passed_stage),
    rejected_stage: Type.Optional(positionFields.rejected_stage),
    needs_reviewed_stage: Type.Optional(positionFields.needs_reviewed_stage),
    auto_update_stages: Type.Optional(positionFields.auto_update_stages),
    upstream_job_id_id: Type.Optional(positionFields.upstream_job_id_id),
    upstream_integration_id: Type.Optional(positionFields.upstream_integration_id),
    ...readOnlyFields,
  },
  { additionalProperties: false, title: "PositionCreate" },
);
export type PositionCreate = Static<typeof PositionCreateSchema>;

/** PUT body: a partial update; only the fields sent change. */
export const PositionUpdateSchema = Type.Partial(PositionCreateSchema, {
  additionalProperties: false,
  title: "PositionUpdate",
});
export type PositionUpdate = Static<typeof PositionUpdateSchema>;

/** A position as the API answers it. `min_score` and `agent_id` are absent until set. */
export const PositionSchema = Type.Object(
  {
    id: Uuid(),
    name: positionFields.name,
    state: PositionStateSchema,
    department: positionFields.department,
    location: positionFields.location,
    min_score: Type.Optional(positionFields.min_score),
    role_description: positionFields.role_description,
    position_calender_link: positionFields.position_calender_link,
    created_at: DateTime({ readOnly: true }),
    accepted_languages: positionFields.accepted_languages,
    updated_at: DateTime({ readOnly: true }),
    agent_id: Type.Optional(positionFields.agent_id),
    candidate_stage: positionFields.candidate_stage,
    passed_stage: positionFields.passed_stage,
    rejected_stage: positionFields.rejected_stage,
    needs_reviewed_stage: positionFields.needs_reviewed_stage,
    auto_update_stages: positionFields.auto_update_stages,
    upstream_job_id_id: positionFields.upstream_job_id_id,
    upstream_integration_id: positionFields.upstream_integration_id,
  },
  { additionalProperties: false, title: "Position" },
);
export type Position = Static<typeof PositionSchema>;

export const PositionListQuerySchema = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, description: "Page size; without it the answer holds every position." })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "`next_cursor` of the previous page (opaque)." })),
    state: Type.Optional(PositionStateSchema),
  },
  { description: "Unknown query parameters are ignored." },
);
export type PositionListQuery = Static<typeof PositionListQuerySchema>;

/** `{"items": [...]}`, oldest first; `next_cursor` is present only when `limit` was given (null on the last page). */
export const PositionListSchema = Type.Object(
  {
    items: Type.Array(PositionSchema),
    next_cursor: Type.Optional(OrNull(Type.String(), { description: "Cursor of the next page; null on the last one." })),
  },
  { additionalProperties: false, title: "PositionList" },
);
export type PositionList = Static<typeof PositionListSchema>;
