/**
 * Upstream general / integration-management / connect shapes (reference/upstream-kombo.md §2a, §2c,
 * §4.11-4.13).
 */
import { type Static, Type } from "@sinclair/typebox";
import { Literals, Nullable } from "../common.js";
import { DateTimeStringSchema } from "./ats-records.js";

export const IntegrationCategorySchema = Literals(["HRIS", "ATS", "ASSESSMENT", "LMS"]);
export type IntegrationCategory = Static<typeof IntegrationCategorySchema>;

/** An integration's state (`status` in the details, `state` in integration-state-changed). */
export const IntegrationStatusSchema = Literals(["ACTIVE", "INVALID", "INACTIVE"]);
export type IntegrationStatus = Static<typeof IntegrationStatusSchema>;

export const SetupStatusSchema = Literals(["INCOMPLETE", "FINAL_SYNC_PENDING", "COMPLETED"]);
export type SetupStatus = Static<typeof SetupStatusSchema>;

export const QaStatusSchema = Literals(["PENDING", "FAILED", "PASSED"]);
export type QaStatus = Static<typeof QaStatusSchema>;

export const CoverageStatusSchema = Literals(["SUPPORTED", "UNSUPPORTED", "NOT_IMPLEMENTED", "UNKNOWN"]);
export type CoverageStatus = Static<typeof CoverageStatusSchema>;

export const ScopeConfigSettingSchema = Literals(["ENABLED", "DISABLED", "OPTIONAL"]);
export type ScopeConfigSetting = Static<typeof ScopeConfigSettingSchema>;

export const SyncTypeSchema = Literals(["FULL", "DELTA"]);
export type SyncType = Static<typeof SyncTypeSchema>;

export const EndUserSchema = Type.Object({
  organization_name: Type.String(),
  creator_email: Nullable(Type.String()),
  origin_id: Nullable(Type.String()),
});
export type EndUser = Static<typeof EndUserSchema>;

/** `GET /check-api-key` → data. */
export const CheckApiKeyResultSchema = Type.Object({
  environment_id: Type.String(),
  customer_id: Type.Optional(Type.String()),
});
export type CheckApiKeyResult = Static<typeof CheckApiKeyResultSchema>;

/** `POST /force-sync` → data. */
export const ForceSyncResultSchema = Type.Object({
  already_queued: Type.Boolean(),
  sync_id: Type.String(),
  type: SyncTypeSchema,
});
export type ForceSyncResult = Static<typeof ForceSyncResultSchema>;

/** The parts of a read model's or write action's entry in the integration details. */
const MODEL = { id: Type.String(), label: Type.String() };
const AVAILABILITY = { is_available: Type.Boolean(), coverage_status: CoverageStatusSchema };
const SETTING = { scope_config_setting: ScopeConfigSettingSchema, opted_out_by_customer: Type.Boolean() };
const FIELD = { id: Type.String(), ...AVAILABILITY };

/** §4.11 `GET /integrations/{integration_id}` → data. */
export const IntegrationDetailsSchema = Type.Object({
  id: Type.String(),
  tool: Type.Object({
    id: Type.String(),
    label: Type.String(),
    internal_label: Nullable(Type.String()),
    logo_url: Type.String(),
    icon_url: Type.String(),
  }),
  category: IntegrationCategorySchema,
  status: IntegrationStatusSchema,
  setup_status: SetupStatusSchema,
  end_user: EndUserSchema,
  scope_config: Type.Object({
    id: Type.String(),
    name: Nullable(Type.String()),
  }),
  data_expired_at: Nullable(DateTimeStringSchema),
  created_at: DateTimeStringSchema,
  beta: Type.Boolean(),
  read_models: Type.Array(
    Type.Object({ ...MODEL, ...AVAILABILITY, ...SETTING, fields: Type.Array(Type.Object({ ...FIELD, ...SETTING })) }),
  ),
  write_actions: Type.Array(Type.Object({ ...MODEL, ...AVAILABILITY, ...SETTING, fields: Type.Array(Type.Object(FIELD)) })),
});
export type IntegrationDetails = Static<typeof IntegrationDetailsSchema>;

const CoverageEntrySchema = Type.Object({
  id: Type.String(),
  label: Type.String(),
  coverage_status: CoverageStatusSchema,
  fields: Type.Array(
    Type.Object({
      id: Type.String(),
      coverage_status: CoverageStatusSchema,
    }),
  ),
});

/** §4.12 `GET /tools/{category}` → data.tools[]. */
export const ToolSchema = Type.Object({
  id: Type.String(),
  label: Type.String(),
  internal_label: Nullable(Type.String()),
  assets: Type.Object({
    logo_url: Type.String(),
    icon_url: Type.String(),
    icon_black_url: Type.String(),
  }),
  paid_api_details_markdown: Nullable(Type.String()),
  fast_track_details_markdown: Nullable(Type.String()),
  partner_only_details_markdown: Nullable(Type.String()),
  connection_guide_url: Nullable(Type.String()),
  coverage: Type.Object({
    read_models: Type.Array(CoverageEntrySchema),
    write_actions: Type.Array(CoverageEntrySchema),
    features: Type.Array(
      Type.Object({
        id: Type.String(),
        label: Type.String(),
        coverage_status: CoverageStatusSchema,
      }),
    ),
  }),
});
export type Tool = Static<typeof ToolSchema>;

/** §4.13 `GET /integrations/{id}/integration-fields` → results[]; `is_writable` is literally false in SDK 1.1.3. */
export const IntegrationFieldSchema = Type.Object({
  id: Type.String(),
  key: Type.String(),
  model: Type.String(),
  type: Literals(["DEFAULT", "CUSTOM"]),
  label: Nullable(Type.String()),
  is_passthrough_enabled: Type.Boolean(),
  is_writable: Type.Literal(false),
});
export type IntegrationField = Static<typeof IntegrationFieldSchema>;

/** §4.13 `GET /integrations/{id}/custom-fields` → results[]. */
export const CustomFieldSchema = Type.Object({
  id: Type.String(),
  key: Type.String(),
  integration_field: Type.Union([
    Type.Object({
      id: Type.String(),
      key: Type.String(),
      type: Literals(["DEFAULT", "CUSTOM"]),
      label: Nullable(Type.String()),
    }),
    Type.Null(),
  ]),
  model: Type.String(),
  label: Nullable(Type.String()),
  description: Nullable(Type.String()),
});
export type CustomField = Static<typeof CustomFieldSchema>;

/** `POST /connect/create-link` and `POST /integrations/{id}/relink` → data. */
export const LinkResultSchema = Type.Object({
  link: Type.String(),
});
export type LinkResult = Static<typeof LinkResultSchema>;

/** `GET /connect/integration-by-token/{token}` → data. */
export const IntegrationByTokenSchema = Type.Object({
  tool: Type.String(),
  id: Type.String(),
  end_user_origin_id: Nullable(Type.String()),
  end_user_organization_name: Type.String(),
  end_user_email: Nullable(Type.String()),
  setup_status: SetupStatusSchema,
});
export type IntegrationByToken = Static<typeof IntegrationByTokenSchema>;
