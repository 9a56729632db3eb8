/**
 * Upstream applications and candidates (reference/upstream-kombo.md §4.2-4.3), with the contact
 * details and references they embed. Re-exported (types) by ats-records.ts.
 */
import { type Static, Type } from "@sinclair/typebox";
import { Literals, Nullable } from "../common.js";
import { ApplicationOutcomeSchema, DateTimeStringSchema, LocationSchema, OfferStatusSchema } from "./ats-records.js";

export const EmailAddressSchema = Type.Object({
  email_address: Type.Optional(Nullable(Type.String())),
  type: Nullable(Type.String()),
});
export type EmailAddress = Static<typeof EmailAddressSchema>;

export const PhoneNumberSchema = Type.Object({
  phone_number: Type.String(),
  type: Type.Optional(Nullable(Type.String())),
});
export type PhoneNumber = Static<typeof PhoneNumberSchema>;

export const SocialMediaSchema = Type.Object({
  link: Type.Optional(Nullable(Type.String())),
  type: Type.Optional(Nullable(Type.String())),
  username: Type.Optional(Nullable(Type.String())),
});
export type SocialMedia = Static<typeof SocialMediaSchema>;

export const TagRefSchema = Type.Object({
  id: Type.String(),
  remote_id: Nullable(Type.String()),
  name: Nullable(Type.String()),
});
export type TagRef = Static<typeof TagRefSchema>;

export const StageRefSchema = Type.Object({
  id: Type.String(),
  remote_id: Nullable(Type.String()),
  name: Nullable(Type.String()),
  index: Nullable(Type.Number()),
});
export type StageRef = Static<typeof StageRefSchema>;

export const JobRefSchema = Type.Object({
  id: Type.String(),
  remote_id: Type.String(),
  name: Nullable(Type.String()),
});
export type JobRef = Static<typeof JobRefSchema>;

export const ScreeningQuestionAnswerSchema = Type.Object({
  question: Type.Object({
    remote_id: Nullable(Type.String()),
    title: Type.String(),
    type: Literals(["TEXT", "BOOLEAN", "SINGLE_SELECT"]),
  }),
  answer: Type.Union([
    Type.Object({
      content: Nullable(Type.String()),
    }),
    Type.Object({
      checked: Nullable(Type.Boolean()),
    }),
    Type.Object({
      choice: Nullable(Type.String()),
    }),
  ]),
});
export type ScreeningQuestionAnswer = Static<typeof ScreeningQuestionAnswerSchema>;

/** §4.2 `GET /ats/applications`. */
export const ApplicationSchema = Type.Object({
  id: Type.String(),
  remote_id: Nullable(Type.String()),
  outcome: Nullable(ApplicationOutcomeSchema),
  rejection_reason_name: Nullable(Type.String()),
  rejected_at: Nullable(DateTimeStringSchema),
  current_stage_id: Nullable(Type.String()),
  job_id: Nullable(Type.String()),
  candidate_id: Nullable(Type.String()),
  screening_question_answers: Type.Optional(Nullable(Type.Array(ScreeningQuestionAnswerSchema))),
  custom_fields: Nullable(Type.Record(Type.String(), Type.Unknown())),
  remote_url: Nullable(Type.String()),
  changed_at: DateTimeStringSchema,
  remote_deleted_at: Nullable(DateTimeStringSchema),
  remote_created_at: Nullable(DateTimeStringSchema),
  remote_updated_at: Nullable(DateTimeStringSchema),
  candidate: Type.Union([
    Type.Object({
      id: Type.String(),
      remote_id: Type.String(),
      first_name: Nullable(Type.String()),
      last_name: Nullable(Type.String()),
      email_addresses: Type.Optional(Nullable(Type.Array(EmailAddressSchema))),
      phone_numbers: Type.Optional(Nullable(Type.Array(PhoneNumberSchema))),
      social_media: Type.Optional(Nullable(Type.Array(SocialMediaSchema))),
      source: Nullable(Type.String()),
      remote_url: Nullable(Type.String()),
      tags: Type.Array(TagRefSchema),
    }),
    Type.Null(),
  ]),
  current_stage: Nullable(StageRefSchema),
  job: Nullable(JobRefSchema),
  interviews: Type.Array(
    Type.Object({
      id: Type.String(),
      remote_id: Nullable(Type.String()),
      title: Nullable(Type.String()),
      starting_at: Nullable(DateTimeStringSchema),
      ending_at: Nullable(DateTimeStringSchema),
      location: Type.Optional(Nullable(LocationSchema)),
      canceled: Nullable(Type.Boolean()),
    }),
  ),
  offers: Type.Array(
    Type.Object({
      id: Type.String(),
      remote_id: Nullable(Type.String()),
      status: Nullable(OfferStatusSchema),
    }),
  ),
});
export type Application = Static<typeof ApplicationSchema>;

/** §4.3 `GET /ats/candidates`. */
export const CandidateSchema = Type.Object({
  id: Type.String(),
  remote_id: Type.String(),
  first_name: Nullable(Type.String()),
  last_name: Nullable(Type.String()),
  company: Nullable(Type.String()),
  title: Nullable(Type.String()),
  confidential: Nullable(Type.Boolean()),
  source: Nullable(Type.String()),
  phone_numbers: Type.Optional(Nullable(Type.Array(PhoneNumberSchema))),
  email_addresses: Type.Optional(Nullable(Type.Array(EmailAddressSchema))),
  social_media: Type.Optional(Nullable(Type.Array(SocialMediaSchema))),
  location: Type.Optional(Nullable(LocationSchema)),
  custom_fields: Nullable(Type.Record(Type.String(), Type.Unknown())),
  remote_url: Nullable(Type.String()),
  remote_created_at: Nullable(DateTimeStringSchema),
  remote_updated_at: Nullable(DateTimeStringSchema),
  changed_at: DateTimeStringSchema,
  remote_deleted_at: Nullable(DateTimeStringSchema),
  applications: Type.Array(
    Type.Object({
      id: Type.String(),
      remote_id: Nullable(Type.String()),
      outcome: Nullable(ApplicationOutcomeSchema),
      rejection_reason_name: Nullable(Type.String()),
      rejected_at: Nullable(DateTimeStringSchema),
      remote_url: Nullable(Type.String()),
      changed_at: DateTimeStringSchema,
      remote_created_at: Nullable(DateTimeStringSchema),
      remote_updated_at: Nullable(DateTimeStringSchema),
      current_stage: Nullable(StageRefSchema),
      job: Nullable(JobRefSchema),
    }),
  ),
  tags: Type.Array(TagRefSchema),
});
export type Candidate = Static<typeof CandidateSchema>;

/** §4.2b: the answer of `POST /ats/jobs/{job_id}/applications` (`data`). */
export const CreatedApplicationSchema = Type.Intersect([
  Type.Omit(ApplicationSchema, ["candidate", "interviews", "offers"]),
  Type.Object({
    candidate: Nullable(Type.Omit(CandidateSchema, Type.Literal("applications"))),
  }),
]);
export type CreatedApplication = Static<typeof CreatedApplicationSchema>;
