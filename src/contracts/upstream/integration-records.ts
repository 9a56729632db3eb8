/**
 * Upstream general / integration-management / connect shapes (reference/upstream-kombo.md §2a, §2c,
 * §4.11-4.13).
 */
import type { DateTimeString } from "./ats-records.js";

export type IntegrationCategory = "HRIS" | "ATS" | "ASSESSMENT" | "LMS";
/** An integration's state (`status` in the details, `state` in integration-state-changed). */
export type IntegrationStatus = "ACTIVE" | "INVALID" | "INACTIVE";
export type SetupStatus = "INCOMPLETE" | "FINAL_SYNC_PENDING" | "COMPLETED";
export type QaStatus = "PENDING" | "FAILED" | "PASSED";
export type CoverageStatus = "SUPPORTED" | "UNSUPPORTED" | "NOT_IMPLEMENTED" | "UNKNOWN";
export type ScopeConfigSetting = "ENABLED" | "DISABLED" | "OPTIONAL";
export type SyncType = "FULL" | "DELTA";

export type EndUser = { organization_name: string; creator_email: string | null; origin_id: string | null };

/** `GET /check-api-key` → data. */
export type CheckApiKeyResult = { environment_id: string; customer_id?: string };

/** `POST /force-sync` → data. */
export type ForceSyncResult = { already_queued: boolean; sync_id: string; type: SyncType };

/** §4.11 `GET /integrations/{integration_id}` → data. */
export type IntegrationDetails = {
  id: string;
  tool: { id: string; label: string; internal_label: string | null; logo_url: string; icon_url: string };
  category: IntegrationCategory;
  status: IntegrationStatus;
  setup_status: SetupStatus;
  end_user: EndUser;
  scope_config: { id: string; name: string | null };
  data_expired_at: DateTimeString | null;
  created_at: DateTimeString;
  beta: boolean;
  read_models: {
    id: string;
    label: string;
    is_available: boolean;
    coverage_status: CoverageStatus;
    scope_config_setting: ScopeConfigSetting;
    opted_out_by_customer: boolean;
    fields: {
      id: string;
      is_available: boolean;
      coverage_status: CoverageStatus;
      scope_config_setting: ScopeConfigSetting;
      opted_out_by_customer: boolean;
    }[];
  }[];
  write_actions: {
    id: string;
    label: string;
    is_available: boolean;
    coverage_status: CoverageStatus;
    scope_config_setting: ScopeConfigSetting;
    opted_out_by_customer: boolean;
    fields: { id: string; is_available: boolean; coverage_status: CoverageStatus }[];
  }[];
};

type CoverageEntry = { id: string; label: string; coverage_status: CoverageStatus; fields: { id: string; coverage_status: CoverageStatus }[] };

/** §4.12 `GET /tools/{category}` → data.tools[]. */
export type Tool = {
  id: string;
  label: string;
  internal_label: string | null;
  assets: { logo_url: string; icon_url: string; icon_black_url: string };
  paid_api_details_markdown: string | null;
  fast_track_details_markdown: string | null;
  partner_only_details_markdown: string | null;
  connection_guide_url: string | null;
  coverage: {
    read_models: CoverageEntry[];
    write_actions: CoverageEntry[];
    features: { id: string; label: string; coverage_status: CoverageStatus }[];
  };
};

/** §4.13 `GET /integrations/{id}/integration-fields` → results[]; `is_writable` is literally false in SDK 1.1.3. */
export type IntegrationField = {
  id: string;
  key: string;
  model: string;
  type: "DEFAULT" | "CUSTOM";
  label: string | null;
  is_passthrough_enabled: boolean;
  is_writable: false;
};

/** §4.13 `GET /integrations/{id}/custom-fields` → results[]. */
export type CustomField = {
  id: string;
  key: string;
  integration_field: { id: string; key: string; type: "DEFAULT" | "CUSTOM"; label: string | null } | null;
  model: string;
  label: string | null;
  description: string | null;
};

/** `POST /connect/create-link` and `POST /integrations/{id}/relink` → data. */
export type LinkResult = { link: string };

/** `GET /connect/integration-by-token/{token}` → data. */
export type IntegrationByToken = {
  tool: string;
  id: string;
  end_user_origin_id: string | null;
  end_user_organization_name: string;
  end_user_email: string | null;
  setup_status: SetupStatus;
};
