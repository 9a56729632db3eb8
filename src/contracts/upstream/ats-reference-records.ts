/**
 * Upstream ATS records other than jobs, applications and candidates (reference/upstream-kombo.md
 * §4.4-4.10): stages, users, offers, rejection reasons, interviews, tags, attachments.
 */
import { type Static, Type } from "@sinclair/typebox";
import { Literals, Nullable } from "../common.js";
import { EmailAddressSchema, JobRefSchema } from "./ats-application-records.js";
import { ApplicationOutcomeSchema, DateTimeStringSchema, JobRoleSchema, LocationSchema, OfferStatusSchema } from "./ats-records.js";

/** The simplest records (stages, tags): a name, the record's ids, when it changed, when it was deleted. */
const namedRecord = () =>
  Type.Object({
    id: Type.String(),
    remote_id: Nullable(Type.String()),
    name: Nullable(Type.String()),
    changed_at: DateTimeStringSchema,
    remote_deleted_at: Nullable(DateTimeStringSchema),
  });

/** §4.4 `GET /ats/application-stages` (deprecated; use `job.stages`). */
export const ApplicationStageSchema = namedRecord();
export type ApplicationStage = Static<typeof ApplicationStageSchema>;

/** §4.5 `GET /ats/users`. */
export const UserSchema = Type.Object({
  id: Type.String(),
  remote_id: Nullable(Type.String()),
  first_name: Nullable(Type.String()),
  last_name: Nullable(Type.String()),
  email: Type.Optional(Nullable(Type.String())),
  status: Nullable(Literals(["ACTIVE", "INACTIVE"])),
  changed_at: DateTimeStringSchema,
  remote_deleted_at: Nullable(DateTimeStringSchema),
  system_roles: Type.Array(JobRoleSchema),
});
export type User = Static<typeof UserSchema>;

const PersonRefSchema = Type.Object({
  id: Type.String(),
  remote_id: Type.String(),
  first_name: Nullable(Type.String()),
  last_name: Nullable(Type.String()),
  email_addresses: Type.Optional(Nullable(Type.Array(EmailAddressSchema))),
});

/** §4.6 `GET /ats/offers`. */
export const OfferSchema = Type.Object({
  id: Type.String(),
  remote_id: Nullable(Type.String()),
  status: Nullable(OfferStatusSchema),
  employment_start_date: Nullable(DateTimeStringSchema),
  application_id: Nullable(Type.String()),
  custom_fields: Nullable(Type.Record(Type.String(), Type.Unknown())),
  changed_at: DateTimeStringSchema,
  remote_deleted_at: Nullable(DateTimeStringSchema),
  remote_created_at: Nullable(DateTimeStringSchema),
  remote_updated_at: Nullable(DateTimeStringSchema),
  application: Type.Union([
    Type.Object({
      candidate: Nullable(PersonRefSchema),
      job: Nullable(JobRefSchema),
    }),
    Type.Null(),
  ]),
});
export type Offer = Static<typeof OfferSchema>;

/** §4.7 `GET /ats/rejection-reasons` (remote_id is NOT nullable here). */
export const RejectionReasonSchema = Type.Object({
  id: Type.String(),
  remote_id: Type.String(),
  name: Nullable(Type.String()),
  changed_at: DateTimeStringSchema,
  remote_deleted_at: Nullable(DateTimeStringSchema),
});
export type RejectionReason = Static<typeof RejectionReasonSchema>;

/** §4.8 `GET /ats/interviews`. */
export const InterviewSchema = Type.Object({
  id: Type.String(),
  remote_id: Nullable(Type.String()),
  title: Nullable(Type.String()),
  starting_at: Nullable(DateTimeStringSchema),
  ending_at: Nullable(DateTimeStringSchema),
  location: Type.Optional(Nullable(LocationSchema)),
  video_conferencing_url: Nullable(Type.String()),
  application_id: Nullable(Type.String()),
  stage_id: Nullable(Type.String()),
  canceled: Nullable(Type.Boolean()),
  remote_created_at: Nullable(DateTimeStringSchema),
  remote_updated_at: Nullable(DateTimeStringSchema),
  changed_at: DateTimeStringSchema,
  remote_deleted_at: Nullable(DateTimeStringSchema),
  users: Type.Array(
    Type.Object({
      id: Type.String(),
      remote_id: Nullable(Type.String()),
      first_name: Nullable(Type.String()),
      last_name: Nullable(Type.String()),
      email: Type.Optional(Nullable(Type.String())),
    }),
  ),
  application: Type.Union([
    Type.Object({
      id: Type.String(),
      remote_id: Nullable(Type.String()),
      outcome: Nullable(ApplicationOutcomeSchema),
      rejection_reason_name: Nullable(Type.String()),
      candidate: Nullable(PersonRefSchema),
      job: Nullable(JobRefSchema),
    }),
    Type.Null(),
  ]),
});
export type Interview = Static<typeof InterviewSchema>;

/** §4.9 `GET /ats/tags`. */
export const TagSchema = namedRecord();
export type Tag = Static<typeof TagSchema>;

/** §4.10 `GET /ats/applications/{id}/attachments` (not paginated). */
export const AttachmentSchema = Type.Object({
  type: Literals(["CV", "COVER_LETTER", "OTHER"]),
  id: Type.String(),
  remote_id: Type.String(),
  data_url: Type.String(),
  file_name: Type.String(),
  content_type: Type.String(),
  remote_created_at: Nullable(DateTimeStringSchema),
  remote_updated_at: Nullable(DateTimeStringSchema),
});
export type Attachment = Static<typeof AttachmentSchema>;
