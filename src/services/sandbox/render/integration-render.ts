/** Integration details, integration fields and custom fields on the wire (§4.11, §4.13). */
import type { CustomField, IntegrationDetails, IntegrationField } from "../../../contracts/upstream/index.js";
import { ATS_READ_MODELS, ATS_WRITE_ACTIONS, assetUrls } from "../data/tools.js";
import type { CustomFieldRow, FieldSet, IntegrationFieldRow } from "../store/fields.js";
import type { Integration } from "../store/sandbox-store.js";

export function renderIntegrationDetails(i: Integration, origin: string): IntegrationDetails {
  const available = i.category === "ATS";
  const coverage = available ? "SUPPORTED" : "UNSUPPORTED";
  const assets = assetUrls(origin, i.tool.id);
  return {
    id: i.id,
    tool: { id: i.tool.id, label: i.tool.label, internal_label: null, logo_url: assets.logo_url, icon_url: assets.icon_url },
    category: i.category,
    status: i.status,
    setup_status: i.setupStatus,
    end_user: i.endUser,
    scope_config: { id: i.scopeConfigId, name: "Default scope" },
    data_expired_at: null,
    created_at: new Date(i.createdAt).toISOString(),
    beta: false,
    read_models: ATS_READ_MODELS.map((m) => ({
      id: m.id,
      label: m.label,
      is_available: available,
      coverage_status: coverage,
      scope_config_setting: "ENABLED",
      opted_out_by_customer: false,
      fields: m.fields.map((f) => ({
        id: f,
        is_available: available,
        coverage_status: coverage,
        scope_config_setting: "ENABLED",
        opted_out_by_customer: false,
      })),
    })),
    write_actions: ATS_WRITE_ACTIONS.map((a) => ({
      id: a.id,
      label: a.label,
      is_available: available,
      coverage_status: coverage,
      scope_config_setting: "ENABLED",
      opted_out_by_customer: false,
      fields: a.fields.map((f) => ({ id: f, is_available: available, coverage_status: coverage })),
    })),
  };
}

export const renderIntegrationField = (f: IntegrationFieldRow): IntegrationField => ({
  id: f.id,
  key: f.key,
  model: f.model,
  type: f.type,
  label: f.label,
  is_passthrough_enabled: f.passthrough,
  is_writable: false,
});

export function renderCustomField(fields: FieldSet, c: CustomFieldRow): CustomField {
  const f = c.integrationFieldId ? fields.fields.get(c.integrationFieldId) : undefined;
  return {
    id: c.id,
    key: c.key,
    model: c.model,
    label: c.label,
    description: c.description,
    integration_field: f ? { id: f.id, key: f.key, type: f.type, label: f.label } : null,
  };
}
