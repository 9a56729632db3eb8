import { type Static, Type } from "@sinclair/typebox";
import { DateTime, Literals, Nullable, Uuid } from "../common.js";
import { StringEnum } from "./common.js";

/**
 * Hirebridge's side of the upstream's assessment channel (docs/assessments.md): the two order
 * receivers, the recruiter-facing listing of recorded orders, the republish of packages and the
 * per-integration "takes orders" switch. (The passthrough of the upstream's four assessment
 * operations is declared in ./assessment.ts.)
 */

/** The two order webhook kinds, each with its receiver at /webhooks/upstream/<receiver>. */
export const ASSESSMENT_ORDER_KINDS = {
  "assessment-order-received": { type: "assessment:order-received", inline: false },
  "inline-assessment-order-received": { type: "inline-assessment:order-received", inline: true },
} as const;
export type AssessmentOrderReceiver = keyof typeof ASSESSMENT_ORDER_KINDS;

// Every string is bounded, like the other receivers' input: an order is stored, never truncated
// on the way in, so an unstorable one is refused (422) before anything is written.
const id = () => Type.String({ minLength: 1, maxLength: 200 });
const text = (maxLength: number) => Nullable(Type.String({ maxLength }));

/**
 * The webhook body, mirroring the official SDK's `AssessmentOrderReceivedWebhookPayload` and
 * `InlineAssessmentOrderReceivedWebhookPayload` (the two are the same but for `type`). Fields
 * Hirebridge does not read are accepted as the SDK types them and not kept.
 */
export const AssessmentOrderWebhookSchema = Type.Object(
  {
    id: id(),
    // Literals (not StringEnum): the receivers check this schema with TypeBox's compiler.
    type: Literals(["assessment:order-received", "inline-assessment:order-received"] as const),
    data: Type.Object({
      id: id(),
      package_id: id(),
      status: Literals(["OPEN", "COMPLETED", "CANCELLED", "REJECTED"] as const),
      integration_id: id(),
      candidate: Type.Object({
        remote_id: Nullable(id()),
        email: Type.String({ minLength: 1, maxLength: 200 }),
        first_name: text(200),
        last_name: text(200),
        phone: text(200),
      }),
      application: Type.Object({ remote_id: Nullable(Type.String({ minLength: 1, maxLength: 100 })) }),
      job: Type.Object({
        remote_id: Nullable(Type.String({ minLength: 1, maxLength: 100 })),
        name: text(1000),
        job_code: text(200),
        description: text(100_000),
        location: Nullable(Type.Object({}, { additionalProperties: true })),
        hiring_team: Type.Array(Type.Object({}, { additionalProperties: true }), { maxItems: 500 }),
      }),
    }),
  },
  { title: "AssessmentOrderWebhook" },
);
export type AssessmentOrderWebhook = Static<typeof AssessmentOrderWebhookSchema>;

/** 422 to an order Hirebridge refuses: the upstream rejects the order and the ATS shows `message`. */
export const AssessmentOrderRejectionSchema = Type.Object(
  { message: Type.String({ description: "Why the order was refused, for the recruiter who placed it." }) },
  { title: "AssessmentOrderRejection" },
);

/** 200 to an accepted order (`assessment:order-received`). */
export const AssessmentOrderAcceptedSchema = Type.Object(
  {
    received: Type.Boolean(),
    processed: Type.Boolean({ description: "True: the candidate and interview exist." }),
    message: Nullable(Type.String()),
  },
  { title: "AssessmentOrderAccepted" },
);
export type AssessmentOrderAccepted = Static<typeof AssessmentOrderAcceptedSchema>;

/** 200 to an inline order: where the candidate takes the interview. */
export const InlineAssessmentAnswerSchema = Type.Object(
  { assessment_url: Type.String({ description: "The candidate's interview link." }) },
  { title: "InlineAssessmentAnswer" },
);

export const ASSESSMENT_ORDER_STATUSES = ["accepted", "rejected"] as const;
export const ASSESSMENT_RESULT_STATUSES = ["OPEN", "COMPLETED", "CANCELLED"] as const;

/** An order as Hirebridge recorded it. */
export const AssessmentOrderSchema = Type.Object(
  {
    id: Uuid(),
    order_id: Type.String({ description: "The upstream's id of the order." }),
    integration_id: Type.String(),
    package_id: Uuid({ description: "The package ordered (a position in state `template`)." }),
    package_name: Nullable(Type.String(), { description: "Null when the package's position no longer exists." }),
    position_id: Nullable(Uuid()),
    candidate_id: Nullable(Uuid()),
    candidate_name: Nullable(Type.String()),
    inline: Type.Boolean(),
    status: StringEnum(ASSESSMENT_ORDER_STATUSES, { description: "accepted: candidate and interview created; rejected: refused." }),
    result_status: StringEnum(ASSESSMENT_RESULT_STATUSES, { description: "The order's status upstream." }),
    message: Nullable(Type.String(), { description: "Why the order was rejected." }),
    created_at: DateTime(),
    updated_at: DateTime(),
  },
  { title: "AssessmentOrder" },
);
export type AssessmentOrder = Static<typeof AssessmentOrderSchema>;

export const AssessmentOrderListQuerySchema = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  after: Type.Optional(Type.String({ maxLength: 200, description: "`next` of the previous page." })),
});
export type AssessmentOrderListQuery = Static<typeof AssessmentOrderListQuerySchema>;

/** Newest first; `next` continues the list (null: the last page). */
export const AssessmentOrderPageSchema = Type.Object(
  { items: Type.Array(AssessmentOrderSchema), next: Nullable(Type.String()) },
  { title: "AssessmentOrderPage" },
);
export type AssessmentOrderPage = Static<typeof AssessmentOrderPageSchema>;

/** A package as Hirebridge publishes it (the upstream's `PUT /assessment/packages` item). */
export const AssessmentPackageSchema = Type.Object(
  {
    id: Uuid({ description: "The position's id." }),
    type: Type.Literal("VIDEO_INTERVIEW"),
    name: Type.String(),
    description: Type.String({ description: "The position's role_description." }),
  },
  { title: "AssessmentPackage" },
);
export type AssessmentPackage = Static<typeof AssessmentPackageSchema>;

export const PublishPackagesResultSchema = Type.Object(
  {
    packages: Type.Array(AssessmentPackageSchema),
    published_at: DateTime(),
  },
  { title: "PublishPackagesResult" },
);
export type PublishPackagesResult = Static<typeof PublishPackagesResultSchema>;

/** Whether an integration takes orders (always, for category ASSESSMENT). */
export const AssessmentSettingsSchema = Type.Object(
  {
    takes_orders: Type.Boolean(),
    category: Nullable(Type.String()),
    published_at: Nullable(DateTime(), { description: "When packages were last published to it." }),
  },
  { title: "AssessmentSettings" },
);
export type AssessmentSettings = Static<typeof AssessmentSettingsSchema>;
export const AssessmentSettingsUpdateSchema = Type.Object(
  { takes_orders: Type.Boolean({ description: "Take orders (ignored for ASSESSMENT integrations, which always do)." }) },
  { additionalProperties: false, title: "AssessmentSettingsUpdate" },
);
