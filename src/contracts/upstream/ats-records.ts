/**
 * Upstream ATS record shapes as they travel on the wire (reference/upstream-kombo.md §4).
 * `T | null` keys are required but nullable; `key?:` keys may be omitted. Datetimes are ISO-8601
 * strings with a time part. Closed enums are closed in the SDK too: any other value fails parsing.
 */
import { type Static, Type } from "@sinclair/typebox";
import { Literals, Nullable } from "../common.js";

export const DateTimeStringSchema = Type.String();
export type DateTimeString = Static<typeof DateTimeStringSchema>;

export const LocationSchema = Type.Object({
  city: Type.Optional(Nullable(Type.String())),
  country: Type.Optional(Nullable(Type.String())),
  raw: Type.Optional(Nullable(Type.String())),
  state: Type.Optional(Nullable(Type.String())),
  street_1: Type.Optional(Nullable(Type.String())),
  street_2: Type.Optional(Nullable(Type.String())),
  zip_code: Type.Optional(Nullable(Type.String())),
});
export type Location = Static<typeof LocationSchema>;

export const ApplicationOutcomeSchema = Literals(["PENDING", "HIRED", "DECLINED"]);
export type ApplicationOutcome = Static<typeof ApplicationOutcomeSchema>;

export const OfferStatusSchema = Literals(["ACCEPTED", "DECLINED", "SENT", "APPROVED", "DRAFT", "ABANDONED"]);
export type OfferStatus = Static<typeof OfferStatusSchema>;

/** Open enums: the SDK accepts other strings too. */
export const JobStatusSchema = Literals(["OPEN", "CLOSED", "DRAFT", "ARCHIVED"]);
export type JobStatus = Static<typeof JobStatusSchema>;

export const EmploymentTypeSchema = Literals(["FULL_TIME", "PART_TIME", "CONTRACT", "SEASONAL", "INTERNSHIP"]);
export type EmploymentType = Static<typeof EmploymentTypeSchema>;

export const JobVisibilitySchema = Literals(["PUBLIC", "INTERNAL", "UNLISTED", "CONFIDENTIAL"]);
export type JobVisibility = Static<typeof JobVisibilitySchema>;

export const RemoteWorkStatusSchema = Literals(["REMOTE", "HYBRID", "TEMPORARY", "ON_SITE"]);
export type RemoteWorkStatus = Static<typeof RemoteWorkStatusSchema>;

export const SalaryPeriodSchema = Literals(["YEAR", "MONTH", "TWO_WEEKS", "WEEK", "DAY", "HOUR"]);
export type SalaryPeriod = Static<typeof SalaryPeriodSchema>;

export const HiringTeamRoleSchema = Literals(["RECRUITER", "HIRING_MANAGER", "COORDINATOR", "SOURCER", "INTERVIEWER"]);
export type HiringTeamRole = Static<typeof HiringTeamRoleSchema>;

export const JobRoleSchema = Type.Object({
  remote_id: Nullable(Type.String()),
  remote_label: Nullable(Type.String()),
  scope: Nullable(Literals(["SYSTEM", "JOB"])),
  unified_type: Type.Union([HiringTeamRoleSchema, Type.Literal("ADMIN"), Type.Null()]),
});
export type JobRole = Static<typeof JobRoleSchema>;

/** A stage of one job (`job.stages[]`); the stage a move-stage call must name. */
export const JobStageSchema = Type.Object({
  id: Type.String(),
  remote_id: Nullable(Type.String()),
  name: Nullable(Type.String()),
  index: Type.Optional(Nullable(Type.Number())),
});
export type JobStage = Static<typeof JobStageSchema>;

export const ScreeningQuestionSchema = Type.Object({
  id: Type.String(),
  remote_id: Nullable(Type.String()),
  title: Nullable(Type.String()),
  description: Nullable(Type.String()),
  format: Type.Optional(
    Type.Union([
      Type.Object({
        type: Type.Literal("TEXT"),
        display_type: Type.Optional(Nullable(Literals(["SINGLE_LINE", "MULTI_LINE", "EMAIL", "URL"]))),
        max_length: Type.Optional(Nullable(Type.Number())),
      }),
      Type.Object({
        type: Type.Literal("BOOLEAN"),
      }),
      Type.Object({
        type: Type.Literal("SINGLE_SELECT"),
        display_type: Type.Optional(Nullable(Literals(["DROPDOWN", "RADIO"]))),
        options: Type.Array(
          Type.Object({
            id: Type.String(),
            remote_id: Type.Optional(Nullable(Type.String())),
            name: Type.String(),
          }),
        ),
      }),
      Type.Null(),
    ]),
  ),
  category: Nullable(Literals(["EEO", "DEMOGRAPHIC"])),
  index: Type.Optional(Nullable(Type.Number())),
  required: Nullable(Type.Boolean()),
});
export type ScreeningQuestion = Static<typeof ScreeningQuestionSchema>;

export const JobPostingSchema = Type.Object({
  id: Type.String(),
  remote_id: Nullable(Type.String()),
  title: Nullable(Type.String()),
  description_html: Nullable(Type.String()),
  status: Nullable(Literals(["ACTIVE", "INACTIVE", "DRAFT"])),
  visibility: Nullable(Literals(["PUBLIC", "INTERNAL", "UNLISTED"])),
  url: Nullable(Type.String()),
});
export type JobPosting = Static<typeof JobPostingSchema>;

export const HiringTeamMemberSchema = Type.Object({
  id: Type.String(),
  remote_id: Nullable(Type.String()),
  first_name: Nullable(Type.String()),
  last_name: Nullable(Type.String()),
  email: Type.Optional(Nullable(Type.String())),
  hiring_team_roles: Type.Array(HiringTeamRoleSchema),
  job_roles: Type.Array(JobRoleSchema),
});
export type HiringTeamMember = Static<typeof HiringTeamMemberSchema>;

/** §4.1 `GET /ats/jobs`. */
export const JobSchema = Type.Object({
  id: Type.String(),
  remote_id: Type.String(),
  name: Nullable(Type.String()),
  job_code: Nullable(Type.String()),
  description: Nullable(Type.String()),
  confidential: Nullable(Type.Boolean()),
  weekly_hours: Nullable(Type.Number()),
  employment_type: Type.Optional(Nullable(EmploymentTypeSchema)),
  status: Type.Optional(Nullable(JobStatusSchema)),
  visibility: Type.Optional(Nullable(JobVisibilitySchema)),
  category: Nullable(Type.String()),
  department: Nullable(Type.String()),
  post_url: Nullable(Type.String()),
  experience_level: Nullable(Type.String()),
  remote_work_status: Type.Optional(Nullable(RemoteWorkStatusSchema)),
  salary_amount: Nullable(Type.Number()),
  salary_amount_from: Nullable(Type.Number()),
  salary_amount_to: Nullable(Type.Number()),
  salary_currency: Nullable(Type.String()),
  salary_period: Type.Optional(Nullable(SalaryPeriodSchema)),
  location: Type.Optional(Nullable(LocationSchema)),
  custom_fields: Nullable(Type.Record(Type.String(), Type.Unknown())),
  remote_url: Nullable(Type.String()),
  opened_at: Nullable(DateTimeStringSchema),
  closed_at: Nullable(DateTimeStringSchema),
  remote_created_at: Nullable(DateTimeStringSchema),
  remote_updated_at: Nullable(DateTimeStringSchema),
  contact_id: Nullable(Type.String()),
  changed_at: DateTimeStringSchema,
  remote_deleted_at: Nullable(DateTimeStringSchema),
  stages: Type.Array(JobStageSchema),
  screening_questions: Type.Array(ScreeningQuestionSchema),
  job_postings: Type.Array(JobPostingSchema),
  hiring_team: Type.Array(HiringTeamMemberSchema),
});
export type Job = Static<typeof JobSchema>;
