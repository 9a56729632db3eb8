import { type Static, type TProperties, Type } from "@sinclair/typebox";
import { Cursor, IntegrationIdQuery, OptionalNullable, PAGE_SIZE_MAX, PageSize, StringEnum } from "./common.js";
import { HttpUrl } from "../common.js";

/**
 * Unified ATS operations (spec: Unified ATS). Every operation takes `integration_id` in the query;
 * list operations add the common list parameters and their own filters.
 */

const CommaSeparated = (what: string) => OptionalNullable(Type.String(), { description: `Comma-separated ${what}.` });
const Filter = (description: string) => OptionalNullable(Type.String(), { description });

/** The common list parameters, all optional. */
export const commonListParameters = {
  integration_id: IntegrationIdQuery,
  cursor: Cursor,
  page_size: PageSize(PAGE_SIZE_MAX),
  updated_after: Filter("Filter by modification date, ISO format."),
  include_deleted: OptionalNullable(Type.Boolean(), { description: "Include deleted entries." }),
  ids: CommaSeparated("IDs"),
  remote_ids: CommaSeparated("remote IDs"),
} satisfies TProperties;

const listQuery = <P extends TProperties>(extra: P) => Type.Object({ ...commonListParameters, ...extra });

export const AtsListQuerySchema = listQuery({});
export type AtsListQuery = Static<typeof AtsListQuerySchema>;

export const ApplicationsQuerySchema = listQuery({
  job_ids: CommaSeparated("job IDs"),
  current_stage_ids: CommaSeparated("current stage IDs"),
  candidate_ids: CommaSeparated("candidate IDs"),
  rejection_reason_ids: CommaSeparated("rejection reason IDs"),
  outcome: Filter("Filter by outcome."),
  custom_fields: Filter("Filter by custom fields (JSON string)."),
});
export type ApplicationsQuery = Static<typeof ApplicationsQuerySchema>;

export const ApplicationStagesQuerySchema = listQuery({ job_ids: CommaSeparated("job IDs") });
export type ApplicationStagesQuery = Static<typeof ApplicationStagesQuerySchema>;

export const JobsQuerySchema = listQuery({
  employment_type: Filter("Filter by employment type."),
  job_status: Filter("Filter by job status."),
  department_ids: CommaSeparated("department IDs"),
  office_ids: CommaSeparated("office IDs"),
  custom_fields: Filter("Filter by custom fields (JSON string)."),
});
export type JobsQuery = Static<typeof JobsQuerySchema>;

export const UsersQuerySchema = listQuery({ email: Filter("Filter by email address.") });
export type UsersQuery = Static<typeof UsersQuerySchema>;

export const OffersQuerySchema = listQuery({
  application_ids: CommaSeparated("application IDs"),
  status: Filter("Filter by offer status."),
});
export type OffersQuery = Static<typeof OffersQuerySchema>;

export const InterviewsQuerySchema = listQuery({
  application_ids: CommaSeparated("application IDs"),
  stage_ids: CommaSeparated("stage IDs"),
  interviewer_ids: CommaSeparated("interviewer IDs"),
});
export type InterviewsQuery = Static<typeof InterviewsQuerySchema>;

/** Write operations take only `integration_id` in the query. */
export const AtsWriteQuerySchema = Type.Object({ integration_id: IntegrationIdQuery });
export type AtsWriteQuery = Static<typeof AtsWriteQuerySchema>;

export const ApplicationParamsSchema = Type.Object({ application_id: Type.String() });
export type ApplicationParams = Static<typeof ApplicationParamsSchema>;
export const CandidateParamsSchema = Type.Object({ candidate_id: Type.String() });
export type CandidateParams = Static<typeof CandidateParamsSchema>;
export const JobParamsSchema = Type.Object({ job_id: Type.String() });
export type JobParams = Static<typeof JobParamsSchema>;

export const ApplicationStageUpdateSchema = Type.Object({ stage_id: Type.String() }, { title: "ApplicationStageUpdate" });
export type ApplicationStageUpdate = Static<typeof ApplicationStageUpdateSchema>;

export const KeyValueDictSchema = Type.Object({ key: Type.String(), value: Type.String() }, { title: "KeyValueDict" });
export const ApplicationResultLinkDetailsSchema = Type.Object(
  { custom_field_name_prefix: Type.String(), attributes: Type.Array(KeyValueDictSchema) },
  { title: "ApplicationResultLinkDetails" },
);
export const ApplicationResultLinkSchema = Type.Object(
  {
    label: Type.String(),
    url: HttpUrl(),
    details: OptionalNullable(ApplicationResultLinkDetailsSchema),
  },
  { title: "ApplicationResultLink" },
);
export type ApplicationResultLink = Static<typeof ApplicationResultLinkSchema>;

export const NOTE_CONTENT_TYPES = ["PLAIN_TEXT"] as const;
export const ApplicationNoteSchema = Type.Object(
  {
    content: Type.String(),
    content_type: OptionalNullable(StringEnum(NOTE_CONTENT_TYPES), {
      default: "PLAIN_TEXT",
      description: "The only supported content_type is PLAIN_TEXT.",
    }),
  },
  { title: "ApplicationNote" },
);
export type ApplicationNote = Static<typeof ApplicationNoteSchema>;

export const TagNameSchema = Type.Object({ name: Type.String() }, { title: "TagName" });
export const CandidateTagsSchema = Type.Object({ tag: TagNameSchema }, { title: "CandidateTags" });
export type CandidateTags = Static<typeof CandidateTagsSchema>;

export const CandidateCreateSchema = Type.Object(
  {
    first_name: Type.String(),
    last_name: Type.String(),
    email_address: OptionalNullable(Type.String()),
    phone_number: OptionalNullable(Type.String()),
    gender: OptionalNullable(Type.String()),
    company: OptionalNullable(Type.String()),
    title: OptionalNullable(Type.String()),
  },
  { title: "CandidateCreate" },
);
export const JobApplicationCreateSchema = Type.Object(
  {
    candidate: CandidateCreateSchema,
    stage_id: OptionalNullable(Type.String()),
    source: OptionalNullable(Type.String()),
    custom_fields: OptionalNullable(Type.Object({}, { additionalProperties: true })),
  },
  { title: "JobApplicationCreate" },
);
export type JobApplicationCreate = Static<typeof JobApplicationCreateSchema>;
