import { type Static, Type } from "@sinclair/typebox";
import { DateTime, Int32, Uuid } from "../common.js";
import { OrNull, readOnly, StringEnum } from "./fields.js";

/**
 * Candidate states (the spec leaves the set open): `new` (created, not yet invited), `invited`,
 * `interviewing`, `interviewed`, `passed`, `rejected`, `needs_review`, `withdrawn`. Set by clients
 * through the PUT paths; a new candidate starts as `new`.
 */
export const CANDIDATE_STATES = [
  "new",
  "invited",
  "interviewing",
  "interviewed",
  "passed",
  "rejected",
  "needs_review",
  "withdrawn",
] as const;
export type CandidateState = (typeof CANDIDATE_STATES)[number];
export const CandidateStateSchema = StringEnum(CANDIDATE_STATES, { description: "Where the candidate is in the process." });

const text200 = () => Type.String({ minLength: 1, maxLength: 200 });
const fields = {
  name: text200(),
  email: Type.String({ format: "email", minLength: 1, maxLength: 200, description: "Unique within the position (case-insensitive)." }),
  phone: text200(),
  language: text200(),
  state: CandidateStateSchema,
  score: Int32(),
  feedback: Type.String({ minLength: 1 }),
  hired: Type.Boolean(),
  invited_at: DateTime(),
  completed_at: DateTime(),
  upstream_application_id: OrNull(Type.String({ minLength: 1, maxLength: 100 }), {
    description: "Link to an upstream application; null unlinks.",
  }),
  short_listed: OrNull(Type.Boolean(), { description: "null means false." }),
  tags: Type.Array(Type.String(), { uniqueItems: true }),
};

/** Server- and path-owned fields: accepted in bodies and ignored (`organization_id`, `position_id` come from the path). */
const ignoredFields = {
  id: readOnly(Uuid()),
  organization_id: readOnly(Uuid()),
  position_id: readOnly(Uuid()),
  created_at: readOnly(DateTime()),
  updated_at: readOnly(DateTime()),
  upstream_assessment_order_id: readOnly(
    OrNull(Type.String(), { description: "The upstream assessment order the candidate came from (docs/assessments.md)." }),
  ),
};

/** POST .../positions/{position_id}/ */
export const CandidateCreateSchema = Type.Object(
  {
    name: fields.name,
    email: fields.email,
    phone: fields.phone,
    language: fields.language,
    tags: Type.Optional(fields.tags),
    hired: Type.Optional(fields.hired),
    upstream_application_id: Type.Optional(fields.upstream_application_id),
    short_listed: Type.Optional(fields.short_listed),
    ...ignoredFields,
  },
  { additionalProperties: false, title: "CandidateCreate" },
);
export type CandidateCreate = Static<typeof CandidateCreateSchema>;

const updateFields = {
  name: Type.Optional(fields.name),
  email: Type.Optional(fields.email),
  phone: Type.Optional(fields.phone),
  language: Type.Optional(fields.language),
  state: Type.Optional(fields.state),
  score: Type.Optional(fields.score),
  feedback: Type.Optional(fields.feedback),
  hired: Type.Optional(fields.hired),
  invited_at: Type.Optional(fields.invited_at),
  completed_at: Type.Optional(fields.completed_at),
  upstream_application_id: Type.Optional(fields.upstream_application_id),
  short_listed: Type.Optional(fields.short_listed),
  tags: Type.Optional(fields.tags),
};

/** PUT .../candidates/{candidate_id}/: a partial update; only the fields sent change. */
export const CandidateUpdateSchema = Type.Object(
  { ...updateFields, ...ignoredFields },
  { additionalProperties: false, title: "CandidateUpdate" },
);
export type CandidateUpdate = Static<typeof CandidateUpdateSchema>;

/** One entry of a bulk update: `id` selects the candidate, the other fields change it. */
export const CandidateBulkUpdateItemSchema = Type.Object(
  {
    id: Uuid({ description: "The candidate to update (must belong to the path's position)." }),
    ...updateFields,
    organization_id: ignoredFields.organization_id,
    position_id: ignoredFields.position_id,
    created_at: ignoredFields.created_at,
    updated_at: ignoredFields.updated_at,
    upstream_assessment_order_id: ignoredFields.upstream_assessment_order_id,
  },
  { additionalProperties: false, title: "CandidateBulkUpdateItem" },
);
export type CandidateBulkUpdateItem = Static<typeof CandidateBulkUpdateItemSchema>;

export const CANDIDATE_BULK_MAX = 1000;
/** PUT .../positions/{position_id}/: applied in one transaction, all or nothing; each id at most once. */
export const CandidateBulkUpdateSchema = Type.Array(CandidateBulkUpdateItemSchema, {
  maxItems: CANDIDATE_BULK_MAX,
  title: "CandidateBulkUpdate",
});
export type CandidateBulkUpdate = Static<typeof CandidateBulkUpdateSchema>;

/**
 * A candidate as the API answers it. Fields the spec types without null are absent until they hold
 * a value: `score`, `feedback`, `invited_at`, `completed_at`, `upstream_application_id`, and `phone`
 * for a candidate synced from an ATS without one.
 */
export const CandidateSchema = Type.Object(
  {
    id: Uuid(),
    position_id: Uuid(),
    organization_id: Uuid(),
    name: Type.String({ minLength: 1 }),
    email: Type.String({ format: "email", minLength: 1 }),
    phone: Type.Optional(Type.String({ minLength: 1, description: "Absent only for candidates synced without one." })),
    language: Type.String({ minLength: 1 }),
    state: CandidateStateSchema,
    score: Type.Optional(fields.score),
    feedback: Type.Optional(fields.feedback),
    hired: fields.hired,
    invited_at: Type.Optional(fields.invited_at),
    completed_at: Type.Optional(fields.completed_at),
    upstream_application_id: Type.Optional(Type.String({ minLength: 1 })),
    upstream_assessment_order_id: Type.Optional(
      Type.String({
        minLength: 1,
        readOnly: true,
        description: "Set when the candidate came from an upstream assessment order: its result goes to the order (docs/assessments.md).",
      }),
    ),
    short_listed: Type.Boolean(),
    tags: fields.tags,
    created_at: DateTime({ readOnly: true }),
    updated_at: DateTime({ readOnly: true }),
  },
  { additionalProperties: false, title: "Candidate" },
);
export type Candidate = Static<typeof CandidateSchema>;

/** Candidates of a position, oldest first. */
export const CandidateListSchema = Type.Array(CandidateSchema, { title: "CandidateList" });
export type CandidateList = Static<typeof CandidateListSchema>;
