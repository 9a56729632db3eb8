/**
 * The upstream's Assessment & Background Check API (Kombo wire protocol, as the official
 * `@kombo-api/sdk` 1.1.3 models it: models/*assessment*, funcs/assessment*): packages a vendor
 * publishes to an integration, orders the ATS places (delivered as the webhooks
 * `assessment:order-received` and `inline-assessment:order-received`, listed at
 * `GET /assessment/orders`), and the result the vendor writes back on an order. The SDK parses
 * every answer with closed enums and required nullable keys, so these schemas say exactly that.
 */
import { type Static, type TSchema, Type } from "@sinclair/typebox";
import { HTTP_URL_PATTERN, Literals, Nullable } from "../common.js";
import { DateTimeStringSchema, LocationSchema } from "./ats-records.js";

export const AssessmentPackageTypeSchema = Literals([
  "BEHAVIORAL",
  "VIDEO_INTERVIEW",
  "SKILLS_TEST",
  "BACKGROUND_CHECK",
  "REFERENCE_CHECK",
]);
export type AssessmentPackageType = Static<typeof AssessmentPackageTypeSchema>;

/** An order's state in the ATS: REJECTED when the vendor refused it (422 to the order webhook). */
export const AssessmentOrderStatusSchema = Literals(["OPEN", "COMPLETED", "CANCELLED", "REJECTED"]);
export type AssessmentOrderStatus = Static<typeof AssessmentOrderStatusSchema>;

/** The statuses a vendor may write (`PUT …/result`): never REJECTED, that is the order webhook's answer. */
export const AssessmentResultStatusSchema = Literals(["COMPLETED", "CANCELLED", "OPEN"]);
export type AssessmentResultStatus = Static<typeof AssessmentResultStatusSchema>;

const Text = (max: number) => Type.String({ minLength: 1, maxLength: max });

/** One package in `PUT /assessment/packages`. */
export const AssessmentPackageInputSchema = Type.Object({
  id: Text(255),
  type: AssessmentPackageTypeSchema,
  name: Text(500),
  description: Type.String({ maxLength: 20_000 }),
});
export type AssessmentPackageInput = Static<typeof AssessmentPackageInputSchema>;

/** `PUT /assessment/packages`: replaces the integration's whole list. */
export const SetAssessmentPackagesBodySchema = Type.Object({
  packages: Type.Array(AssessmentPackageInputSchema, { maxItems: 1000 }),
});
export type SetAssessmentPackagesBody = Static<typeof SetAssessmentPackagesBodySchema>;

/** `GET /assessment/packages` → data.packages[]. */
export const AssessmentPackageSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  updated_at: Nullable(DateTimeStringSchema),
  type: Nullable(AssessmentPackageTypeSchema),
});
export type AssessmentPackage = Static<typeof AssessmentPackageSchema>;

export const AssessmentPackagesSchema = Type.Object({ packages: Type.Array(AssessmentPackageSchema) });
export type AssessmentPackages = Static<typeof AssessmentPackagesSchema>;

export const AssessmentCandidateSchema = Type.Object({
  remote_id: Nullable(Type.String()),
  email: Type.String(),
  first_name: Nullable(Type.String()),
  last_name: Nullable(Type.String()),
  phone: Nullable(Type.String()),
});
export type AssessmentCandidate = Static<typeof AssessmentCandidateSchema>;

export const AssessmentHiringTeamMemberSchema = Type.Object({
  remote_id: Nullable(Type.String()),
  email: Nullable(Type.String()),
  first_name: Nullable(Type.String()),
  last_name: Nullable(Type.String()),
  hiring_team_roles: Type.Array(Literals(["RECRUITER", "HIRING_MANAGER"])),
});
export type AssessmentHiringTeamMember = Static<typeof AssessmentHiringTeamMemberSchema>;

export const AssessmentJobSchema = Type.Object({
  remote_id: Nullable(Type.String()),
  name: Nullable(Type.String()),
  job_code: Nullable(Type.String()),
  description: Nullable(Type.String()),
  location: Nullable(LocationSchema),
  hiring_team: Type.Array(AssessmentHiringTeamMemberSchema),
});
export type AssessmentJob = Static<typeof AssessmentJobSchema>;

/** `GET /assessment/orders` → data.results[]. */
export const AssessmentOrderSchema = Type.Object({
  id: Type.String(),
  package_id: Type.String(),
  status: AssessmentOrderStatusSchema,
  candidate: AssessmentCandidateSchema,
  application: Type.Object({ remote_id: Nullable(Type.String()) }),
  job: AssessmentJobSchema,
});
export type AssessmentOrder = Static<typeof AssessmentOrderSchema>;

/** `GET /assessment/orders`: the standard paging plus comma-separated `ids` and `statuses`. */
export const AssessmentOrdersQuerySchema = Type.Object({
  cursor: Type.Optional(Type.String({ minLength: 1 })),
  page_size: Type.Optional(Type.Integer({ minimum: 1, maximum: 250 })),
  ids: Type.Optional(Type.String()),
  statuses: Type.Optional(Type.String()),
  created_after: Type.Optional(Type.String({ format: "date-time" })),
});
export type AssessmentOrdersQuery = Static<typeof AssessmentOrdersQuerySchema>;

export const AssessmentTextAttributeSchema = Type.Object({
  type: Type.Literal("TEXT"),
  label: Text(500),
  value: Type.String({ maxLength: 20_000 }),
});
export const AssessmentSubResultAttributeSchema = Type.Object({
  type: Type.Literal("SUB_RESULT"),
  id: Text(255),
  label: Text(500),
  score: Type.Object({ value: Type.Number(), max: Type.Number() }),
  status: Literals(["COMPLETED", "CANCELLED"]),
});
export const AssessmentAttributeSchema = Type.Union([AssessmentTextAttributeSchema, AssessmentSubResultAttributeSchema]);
export type AssessmentAttribute = Static<typeof AssessmentAttributeSchema>;

/** A file on the result: its bytes inline (`data`, base64) or where the upstream downloads them (`data_url`). */
export const AssessmentAttachmentInputSchema = Type.Object({
  name: Text(255),
  content_type: Type.Optional(Text(255)),
  data_url: Type.Optional(Type.String({ pattern: HTTP_URL_PATTERN, maxLength: 4096 })),
  data: Type.Optional(Type.String({ minLength: 1 })),
});
export type AssessmentAttachmentInput = Static<typeof AssessmentAttachmentInputSchema>;

/** `PUT /assessment/orders/{assessment_order_id}/result`. */
export const UpdateAssessmentResultBodySchema = Type.Object({
  status: AssessmentResultStatusSchema,
  result_url: Type.String({ pattern: HTTP_URL_PATTERN, maxLength: 4096 }),
  completed_at: Type.Optional(Type.String({ format: "date-time" })),
  score: Type.Optional(Type.Number()),
  max_score: Type.Optional(Type.Number()),
  attributes: Type.Optional(Type.Array(AssessmentAttributeSchema, { maxItems: 100 })),
  attachments: Type.Optional(Type.Array(AssessmentAttachmentInputSchema, { maxItems: 10 })),
  /** Per tool (the SDK sends smartrecruiters.scoreLabel, recruitee.subtitle); kept, not interpreted. */
  remote_fields: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});
export type UpdateAssessmentResultBody = Static<typeof UpdateAssessmentResultBodySchema>;

export const AssessmentOrderParamsSchema = Type.Object({ assessment_order_id: Type.String({ minLength: 1 }) });

/** The two order webhooks: the ATS placed an order (inline: from its career page, answered at once). */
export const ASSESSMENT_WEBHOOK_EVENT_TYPES = ["assessment:order-received", "inline-assessment:order-received"] as const;
export type AssessmentWebhookEventType = (typeof ASSESSMENT_WEBHOOK_EVENT_TYPES)[number];

/**
 * Where each kind is received under the receiver base: a path segment cannot hold the type's `:`
 * comfortably, so `assessment:order-received` goes to `<base>/assessment-order-received`.
 */
export const ASSESSMENT_WEBHOOK_PATHS = {
  "assessment:order-received": "assessment-order-received",
  "inline-assessment:order-received": "inline-assessment-order-received",
} as const satisfies Record<AssessmentWebhookEventType, string>;

/** `data` of both order webhooks: the order as listed, plus its integration. */
export const AssessmentOrderReceivedDataSchema = Type.Composite([AssessmentOrderSchema, Type.Object({ integration_id: Type.String() })]);
export type AssessmentOrderReceivedData = Static<typeof AssessmentOrderReceivedDataSchema>;

export const ASSESSMENT_WEBHOOK_DATA_SCHEMAS = {
  "assessment:order-received": AssessmentOrderReceivedDataSchema,
  "inline-assessment:order-received": AssessmentOrderReceivedDataSchema,
} as const satisfies Record<AssessmentWebhookEventType, TSchema>;

export const AssessmentWebhookEventSchema = <K extends AssessmentWebhookEventType>(type: K) =>
  Type.Object({ id: Type.String(), type: Type.Literal(type), data: ASSESSMENT_WEBHOOK_DATA_SCHEMAS[type] });

export const ASSESSMENT_WEBHOOK_EVENT_SCHEMAS = Object.fromEntries(
  ASSESSMENT_WEBHOOK_EVENT_TYPES.map((type) => [type, AssessmentWebhookEventSchema(type)]),
) as { [K in AssessmentWebhookEventType]: ReturnType<typeof AssessmentWebhookEventSchema<K>> };

export type AssessmentWebhookEvent<K extends AssessmentWebhookEventType = AssessmentWebhookEventType> = {
  [T in K]: { id: string; type: T; data: AssessmentOrderReceivedData };
}[K];

/** The receiver's answers the upstream understands: 422 `{message}` rejects the order (the ATS shows it). */
export const AssessmentOrderRejectionSchema = Type.Object({ message: Type.String({ minLength: 1 }) });
export type AssessmentOrderRejection = Static<typeof AssessmentOrderRejectionSchema>;

/** The answer to an inline order: where the candidate is sent to take the assessment. */
export const InlineAssessmentAnswerSchema = Type.Object({ assessment_url: Type.String({ pattern: HTTP_URL_PATTERN }) });
export type InlineAssessmentAnswer = Static<typeof InlineAssessmentAnswerSchema>;
