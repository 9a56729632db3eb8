/**
 * Upstream general / integration-management / connect shapes (reference/upstream-kombo.md §2a, §2c,
 * §4.11-4.13).
 */
import { type Static, Type } from "@sinclair/typebox";
import { Nullable } from "../common.js";
import { DateTimeStringSchema } from "./ats-records.js";

export const IntegrationCategorySchema = Type.Union([
  Type.Literal("HRIS"),
  Type.Literal("ATS"),
  Type.Literal("ASSESSMENT"),
  Type.Literal("LMS"),
]);
export type IntegrationCategory = Static<typeof IntegrationCategorySchema>;

/** An integration's state (`status` in the details, `state` in integration-state-changed). */
export const IntegrationStatusSchema = Type.Union([Type.Literal("ACTIVE"), Type.Literal("INVALID"), Type.Literal("INACTIVE")]);
export type IntegrationStatus = Static<typeof IntegrationStatusSchema>;

export const SetupStatusSchema = Type.Union([Type.Literal("INCOMPLETE"), Type.Literal("FINAL_SYNC_PENDING"), Type.Literal("COMPLETED")]);
export type SetupStatus = Static<typeof SetupStatusSchema>;

export const QaStatusSchema = Type.Union([Type.Literal("PENDING"), Type.Literal("FAILED"), Type.Literal("PASSED")]);
export type QaStatus = Static<typeof QaStatusSchema>;

export const CoverageStatusSchema = Type.Union([
  Type.Literal("SUPPORTED"),
  Type.Literal("UNSUPPORTED"),
  Type.Literal("NOT_IMPLEMENTED"),
  Type.Literal("UNKNOWN"),
]);
export type CoverageStatus = Static<typeof CoverageStatusSchema>;

export const ScopeConfigSettingSchema = Type.Union([Type.Literal("ENABLED"), Type.Literal("DISABLED"), Type.Literal("OPTIONAL")]);
export type ScopeConfigSetting = Static<typeof ScopeConfigSettingSchema>;

export const SyncTypeSchema = Type.Union([Type.Literal("FULL"), Type.Literal("DELTA")]);
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
    Type.Object({
      id: Type.String(),
      label: Type.String(),
      is_available: Type.Boolean(),
      coverage_status: CoverageStatusSchema,
      scope_config_setting: ScopeConfigSettingSchema,
      opted_out_by_customer: Type.Boolean(),
      fields: Type.Array(
        Type.Object({
          id: Type.String(),
          is_available: Type.Boolean(),
          coverage_status: CoverageStatusSchema,
          scope_config_setting: ScopeConfigSettingSchema,
          opted_out_by_customer: Type.Boolean(),
        }),
      ),
    }),
  ),
  write_actions: Type.Array(
    Type.Object({
      id: Type.String(),
      label: Type.String(),
      is_available: Type.Boolean(),
      coverage_status: CoverageStatusSchema,
      scope_config_setting: ScopeConfigSettingSchema,
      opted_out_by_customer: Type.Boolean(),
      fields: Type.Array(
        Type.Object({
          id: Type.String(),
          is_available: Type.Boolean(),
          coverage_status: CoverageStatusSchema,
        }),
      ),
    }),
  ),
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
  type: Type.Union([Type.Literal("DEFAULT"), Type.Literal("CUSTOM")]),
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
      type: Type.Union([Type.Literal("DEFAULT"), Type.Literal("CUSTOM")]),
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
