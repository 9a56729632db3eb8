import { type Static, Type } from "@sinclair/typebox";
import { DateTime, HttpUrl } from "../common.js";
import { Cursor, IntegrationIdQuery, OptionalNullable, PAGE_SIZE_MAX, PageSize, StringEnum } from "./common.js";

/**
 * The upstream's assessment operations as the proxy passes them through (issue 40): packages
 * (replace and list), orders (list) and an order's result. Bodies mirror the request models of the
 * official `@kombo-api/sdk` (PutAssessmentPackagesRequestBody,
 * PutAssessmentOrdersAssessmentOrderIdResultRequestBody), so what that SDK sends validates here.
 */

/**
 * `integration_id` as the other unified operations take it. The upstream's SDK sends the
 * integration in the `X-Integration-Id` header instead, which the proxy also accepts (the two must
 * agree when both are given); the route copies the header into the query before validation.
 */
export const AssessmentQuerySchema = Type.Object({ integration_id: IntegrationIdQuery });
export type AssessmentQuery = Static<typeof AssessmentQuerySchema>;

export const IntegrationIdHeaderSchema = Type.Object({
  "x-integration-id": Type.Optional(
    Type.String({ description: "The integration, as the official SDK sends it; must equal `integration_id` when both are given." }),
  ),
});

export const ASSESSMENT_PACKAGE_TYPES = ["BEHAVIORAL", "VIDEO_INTERVIEW", "SKILLS_TEST", "BACKGROUND_CHECK", "REFERENCE_CHECK"] as const;
export type AssessmentPackageType = (typeof ASSESSMENT_PACKAGE_TYPES)[number];

export const AssessmentPackageInputSchema = Type.Object(
  {
    id: Type.String({ minLength: 1, description: "Your id of the package; orders name it as `package_id`." }),
    type: StringEnum(ASSESSMENT_PACKAGE_TYPES),
    name: Type.String({ minLength: 1, description: "Shown to the recruiter in the ATS." }),
    description: Type.String(),
  },
  { title: "AssessmentPackageInput" },
);
export type AssessmentPackageInput = Static<typeof AssessmentPackageInputSchema>;

/** Replaces the integration's whole list of packages. */
export const SetAssessmentPackagesSchema = Type.Object(
  { packages: Type.Array(AssessmentPackageInputSchema) },
  { title: "SetAssessmentPackages" },
);
export type SetAssessmentPackages = Static<typeof SetAssessmentPackagesSchema>;

/** An order's status upstream (named apart from Hirebridge's own order statuses in ./assessment-orders.ts). */
export const UPSTREAM_ORDER_STATUSES = ["OPEN", "COMPLETED", "CANCELLED", "REJECTED"] as const;
export type UpstreamOrderStatus = (typeof UPSTREAM_ORDER_STATUSES)[number];
const STATUS_LIST = `^(${UPSTREAM_ORDER_STATUSES.join("|")})(,(${UPSTREAM_ORDER_STATUSES.join("|")}))*$`;

export const AssessmentOrdersQuerySchema = Type.Object({
  integration_id: IntegrationIdQuery,
  cursor: Cursor,
  page_size: PageSize(PAGE_SIZE_MAX),
  ids: OptionalNullable(Type.String(), { description: "Comma-separated order IDs." }),
  statuses: OptionalNullable(Type.String({ pattern: STATUS_LIST }), {
    description: `Comma-separated statuses: ${UPSTREAM_ORDER_STATUSES.join(", ")}.`,
  }),
  created_after: OptionalNullable(DateTime(), { description: "Only orders created after this instant (ISO 8601)." }),
});
export type AssessmentOrdersQuery = Static<typeof AssessmentOrdersQuerySchema>;

export const AssessmentOrderParamsSchema = Type.Object({ assessment_order_id: Type.String({ minLength: 1 }) });
export type AssessmentOrderParams = Static<typeof AssessmentOrderParamsSchema>;

export const UPSTREAM_RESULT_STATUSES = ["COMPLETED", "CANCELLED", "OPEN"] as const;
export const SUB_RESULT_STATUSES = ["COMPLETED", "CANCELLED"] as const;

export const TextAttributeSchema = Type.Object(
  { type: Type.Literal("TEXT"), label: Type.String(), value: Type.String() },
  { title: "AssessmentTextAttribute" },
);
export const SubResultAttributeSchema = Type.Object(
  {
    type: Type.Literal("SUB_RESULT"),
    id: Type.String(),
    label: Type.String(),
    score: Type.Object({ value: Type.Number(), max: Type.Number() }),
    status: StringEnum(SUB_RESULT_STATUSES),
  },
  { title: "AssessmentSubResultAttribute" },
);
export type AssessmentAttribute = Static<typeof TextAttributeSchema> | Static<typeof SubResultAttributeSchema>;

/** Base64 of the file; the alphabet alone is checked here (the upstream decodes it). */
const BASE64 = "^[A-Za-z0-9+/]*={0,2}$";

/** A file of the result: exactly one of `data` (with `content_type`) or `data_url` (checked by the route). */
export const AssessmentAttachmentSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, description: "A human-readable file name with an extension, e.g. `Report.pdf`." }),
    content_type: Type.Optional(Type.String({ minLength: 1, description: "Required with `data`; e.g. `application/pdf`." })),
    data_url: Type.Optional(HttpUrl({ description: "Where the upstream downloads the file, without authentication." })),
    data: Type.Optional(Type.String({ pattern: BASE64, description: "Base64 of the file." })),
  },
  { title: "AssessmentAttachment" },
);
export type AssessmentAttachment = Static<typeof AssessmentAttachmentSchema>;

export const AssessmentResultSchema = Type.Object(
  {
    status: StringEnum(UPSTREAM_RESULT_STATUSES, { description: "Can change only while the order is OPEN." }),
    result_url: HttpUrl({ description: "Where the recruiter sees the result." }),
    completed_at: Type.Optional(DateTime({ description: "Give it with COMPLETED or CANCELLED." })),
    score: Type.Optional(Type.Number()),
    max_score: Type.Optional(Type.Number()),
    attributes: Type.Optional(Type.Array(Type.Union([TextAttributeSchema, SubResultAttributeSchema]))),
    attachments: Type.Optional(Type.Array(AssessmentAttachmentSchema)),
    remote_fields: Type.Optional(
      Type.Object({
        smartrecruiters: Type.Optional(Type.Object({ score_label: Type.Optional(Type.String()) })),
        recruitee: Type.Optional(Type.Object({ subtitle: Type.Optional(Type.String()) })),
      }),
    ),
  },
  { title: "AssessmentResult" },
);
export type AssessmentResult = Static<typeof AssessmentResultSchema>;
