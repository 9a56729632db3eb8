/** Bodies of the admin surface (/sandbox/…): JSON, no auth, a local development tool. */
import { Type } from "@sinclair/typebox";

const Str = (opts: Record<string, unknown> = {}) => Type.String({ minLength: 1, ...opts });
const Category = Type.Union(["HRIS", "ATS", "ASSESSMENT", "LMS"].map((c) => Type.Literal(c)));

export const IntegrationParams = Type.Object({ id: Str() });
export const ApplicationParams = Type.Object({ id: Str(), app_id: Str() });
export const ApplicationListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
  offset: Type.Optional(Type.Integer({ minimum: 0 })),
});

export const CreateIntegrationSchema = Type.Object(
  {
    tool: Type.Optional(Str({ description: "Tool id (default greenhouse)." })),
    category: Type.Optional(Category),
    /** Shortcut for end_user.origin_id: the owning organisation. */
    org_id: Type.Optional(Str()),
    end_user: Type.Optional(
      Type.Object({
        organization_name: Str(),
        creator_email: Type.Optional(Type.Union([Type.Null(), Type.String({ format: "email" })])),
        origin_id: Type.Optional(Type.Union([Type.Null(), Str()])),
      }),
    ),
    applications: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
    seed: Type.Optional(Type.Union([Type.Integer(), Str()])),
  },
  { additionalProperties: false },
);

export const IntegrationStateSchema = Type.Object(
  {
    state: Type.Optional(Type.Union(["ACTIVE", "INVALID", "INACTIVE"].map((s) => Type.Literal(s)))),
    setup_status: Type.Optional(Type.Union(["INCOMPLETE", "FINAL_SYNC_PENDING", "COMPLETED"].map((s) => Type.Literal(s)))),
    qa_status: Type.Optional(Type.Union(["PENDING", "FAILED", "PASSED"].map((s) => Type.Literal(s)))),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const AdminJobSchema = Type.Object(
  {
    name: Str(),
    department: Type.Optional(Str()),
    status: Type.Optional(Type.Union(["OPEN", "CLOSED", "DRAFT", "ARCHIVED"].map((s) => Type.Literal(s)))),
    employment_type: Type.Optional(
      Type.Union(["FULL_TIME", "PART_TIME", "CONTRACT", "SEASONAL", "INTERNSHIP"].map((s) => Type.Literal(s))),
    ),
    city: Type.Optional(Str()),
    country: Type.Optional(Str({ maxLength: 2, minLength: 2 })),
    stages: Type.Optional(Type.Array(Str(), { minItems: 1, maxItems: 30 })),
  },
  { additionalProperties: false },
);

export const AdminApplicationSchema = Type.Object(
  {
    job_id: Str(),
    candidate: Type.Object({
      first_name: Str(),
      last_name: Str(),
      email_address: Type.String({ format: "email" }),
      phone_number: Type.Optional(Str()),
      company: Type.Optional(Str()),
      title: Type.Optional(Str()),
    }),
    stage_id: Type.Optional(Str()),
    stage_name: Type.Optional(Str()),
    source: Type.Optional(Str()),
  },
  { additionalProperties: false },
);

export const AdminMoveSchema = Type.Object(
  { stage_id: Type.Optional(Str()), stage_name: Type.Optional(Str()) },
  { additionalProperties: false, minProperties: 1 },
);

export const WebhookLogQuery = Type.Object({
  type: Type.Optional(Str()),
  integration_id: Type.Optional(Str()),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
});

export const OrderParams = Type.Object({ id: Str(), order_id: Str() });
export const OrderAttachmentParams = Type.Object({ id: Str(), order_id: Str(), index: Type.Integer({ minimum: 0 }) });

/** The recruiter's click in the ATS: an assessment order for one application. */
export const PlaceOrderSchema = Type.Object(
  {
    application_id: Str({ description: "The sandbox's application id." }),
    package_id: Str({ description: "One of the integration's packages (PUT /v1/assessment/packages)." }),
    inline: Type.Optional(Type.Boolean({ description: "Placed from the career page: inline-assessment:order-received." })),
  },
  { additionalProperties: false },
);
