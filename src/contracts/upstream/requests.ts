/**
 * Request bodies and list queries of the upstream operations (reference/upstream-kombo.md §2),
 * declared once in TypeBox: the sandbox validates with them, the proxy can build bodies from them.
 * Unknown keys are tolerated, as a JSON API that evolves must; `remote_fields` is per tool.
 */
import { type Static, Type } from "@sinclair/typebox";
import { Nullable } from "../common.js";
import { IntegrationCategorySchema } from "./integration-records.js";

/**
 * `Nullable` puts `null` first: Ajv with type coercion (the shared app config) tries anyOf branches in order
 * and would otherwise coerce a JSON null into "" or false.
 */
const RemoteFields = Type.Optional(Type.Record(Type.String(), Type.Unknown()));
const Language = Type.Union(["en", "de", "fr", "it", "es"].map((l) => Type.Literal(l)));
const LinkType = Type.Union([Type.Literal("EMBEDDED"), Type.Literal("MAGIC_LINK")]);

/** Comma-separated lists arrive as one string (`ids=a,b`); booleans as "true"/"false". */
const BoolString = Type.Union([Type.Literal("true"), Type.Literal("false")]);

/** The standard query of every ATS list endpoint (§2d) plus the filters the sandbox implements. */
export const ListQuerySchema = Type.Object({
  cursor: Type.Optional(Type.String({ minLength: 1 })),
  page_size: Type.Optional(Type.Integer({ minimum: 1, maximum: 250 })),
  updated_after: Type.Optional(Type.String({ format: "date-time" })),
  include_deleted: Type.Optional(BoolString),
  ignore_unsupported_filters: Type.Optional(BoolString),
  ids: Type.Optional(Type.String()),
  remote_ids: Type.Optional(Type.String()),
});
export type ListQuery = Static<typeof ListQuerySchema> & Record<string, string | number | undefined>;

export const PagingQuerySchema = Type.Object({
  cursor: Type.Optional(Type.String({ minLength: 1 })),
  page_size: Type.Optional(Type.Integer({ minimum: 1, maximum: 250 })),
});
export const IntegrationFieldsQuerySchema = Type.Object({
  cursor: Type.Optional(Type.String({ minLength: 1 })),
  page_size: Type.Optional(Type.Integer({ minimum: 1, maximum: 2000 })),
});

export const ForceSyncBodySchema = Type.Object({
  type: Type.Optional(Type.Union([Type.Literal("FULL"), Type.Literal("DELTA")], { default: "FULL" })),
});

export const RelinkBodySchema = Type.Object({
  language: Type.Optional(Type.Union([Type.Null(), Language])),
  scope_config_id: Type.Optional(Nullable(Type.String())),
  link_type: Type.Optional(LinkType),
});

export const IntegrationFieldPatchSchema = Type.Object({ enable_passthrough: Nullable(Type.Boolean()) });
export type IntegrationFieldPatch = Static<typeof IntegrationFieldPatchSchema>;

export const CustomFieldMappingSchema = Type.Object({ integration_field_id: Nullable(Type.String()) });
export type CustomFieldMapping = Static<typeof CustomFieldMappingSchema>;

export const MoveStageBodySchema = Type.Object({ stage_id: Type.String({ minLength: 1 }), remote_fields: RemoteFields });
export type MoveStageBody = Static<typeof MoveStageBodySchema>;

export const ResultLinkBodySchema = Type.Object({
  label: Type.String({ minLength: 1 }),
  url: Type.String({ format: "uri" }),
  details: Type.Optional(
    Type.Object({
      custom_field_name_prefix: Type.String(),
      attributes: Type.Array(Type.Object({ key: Type.String(), value: Type.String() })),
    }),
  ),
  remote_fields: RemoteFields,
});
export type ResultLinkBody = Static<typeof ResultLinkBodySchema>;

export const NoteBodySchema = Type.Object({
  content: Type.String({ minLength: 1 }),
  content_type: Type.Optional(Type.Literal("PLAIN_TEXT", { default: "PLAIN_TEXT" })),
  remote_fields: RemoteFields,
});
export type NoteBody = Static<typeof NoteBodySchema>;

export const CandidateTagBodySchema = Type.Object({
  tag: Type.Object({ name: Type.String({ minLength: 1 }) }),
  remote_fields: RemoteFields,
});
export type CandidateTagBody = Static<typeof CandidateTagBodySchema>;

export const CreateApplicationBodySchema = Type.Object({
  candidate: Type.Object({
    first_name: Type.String({ minLength: 1 }),
    last_name: Type.String({ minLength: 1 }),
    email_address: Type.String({ format: "email" }),
    additional_email_addresses: Type.Optional(
      Type.Array(
        Type.Object({
          type: Type.Union([Type.Literal("PERSONAL"), Type.Literal("WORK"), Type.Literal("OTHER")]),
          email_address: Type.String({ format: "email" }),
        }),
      ),
    ),
    company: Type.Optional(Nullable(Type.String())),
    title: Type.Optional(Nullable(Type.String())),
    phone_number: Type.Optional(Nullable(Type.String())),
    location: Type.Optional(
      Type.Object({
        city: Type.Optional(Type.String()),
        country: Type.String(),
        state: Type.Optional(Type.String()),
        street_1: Type.Optional(Type.String()),
        zip_code: Type.Optional(Type.String()),
      }),
    ),
    gender: Type.Optional(Type.Union([Type.Literal("MALE"), Type.Literal("FEMALE"), Type.Literal("OTHER")])),
    availability_date: Type.Optional(Type.String({ format: "date-time" })),
    salary_expectations: Type.Optional(
      Type.Object({ period: Type.Union([Type.Literal("MONTH"), Type.Literal("YEAR")]), amount: Type.Number() }),
    ),
    social_links: Type.Optional(Type.Array(Type.Object({ url: Type.String() }))),
  }),
  stage_id: Type.Optional(Type.String({ minLength: 1 })),
  attachments: Type.Optional(
    Type.Array(
      Type.Object({
        name: Type.String({ minLength: 1 }),
        content_type: Type.Optional(Type.String()),
        data_url: Type.Optional(Type.String()),
        data: Type.Optional(Type.String()),
        type: Type.Union([Type.Literal("CV"), Type.Literal("COVER_LETTER"), Type.Literal("OTHER")]),
      }),
    ),
  ),
  source: Type.Optional(
    Type.Object({ name: Type.Optional(Type.String()), unified_key: Type.Optional(Type.String()), id: Type.Optional(Type.String()) }),
  ),
  sourced_by: Type.Optional(Type.Object({ user_id: Type.String() })),
  gdpr_consent: Type.Optional(
    Type.Object({ expires_at: Type.Optional(Type.String({ format: "date-time" })), given: Type.Optional(Type.Boolean()) }),
  ),
  screening_question_answers: Type.Optional(Type.Array(Type.Object({ question_id: Type.String(), answer: Type.Unknown() }))),
  remote_fields: RemoteFields,
});
export type CreateApplicationBody = Static<typeof CreateApplicationBodySchema>;

export const CreateLinkBodySchema = Type.Object({
  end_user_email: Type.String({ format: "email" }),
  end_user_organization_name: Type.String({ minLength: 1 }),
  end_user_origin_id: Type.Optional(Nullable(Type.String())),
  remote_environment: Type.Optional(Nullable(Type.String())),
  integration_category: Type.Optional(Type.Union([IntegrationCategorySchema], { default: "HRIS" })),
  integration_tool: Type.Optional(Nullable(Type.String())),
  language: Type.Optional(Type.Union([Type.Null(), Language])),
  scope_config_id: Type.Optional(Nullable(Type.String())),
  enable_filtering: Type.Optional(Type.Boolean()),
  enable_field_mapping: Type.Optional(Type.Boolean()),
  link_type: Type.Optional(LinkType),
});
export type CreateLinkBody = Static<typeof CreateLinkBodySchema>;
