/**
 * Integration fields and custom fields of one integration (§4.13): the tool's fields per model,
 * and the customer-defined custom fields that can be mapped to them.
 */
import { Random } from "../data/random.js";
import { Collection } from "./collection.js";
import type { BaseRow } from "./rows.js";

export type IntegrationFieldRow = BaseRow & {
  key: string;
  model: string;
  type: "DEFAULT" | "CUSTOM";
  label: string | null;
  passthrough: boolean;
};

export type CustomFieldRow = BaseRow & {
  key: string;
  model: string;
  label: string | null;
  description: string | null;
  integrationFieldId: string | null;
};

const DEFAULT_FIELDS: Record<string, string[]> = {
  ats_jobs: ["name", "job_code", "description", "status", "department", "category", "location", "salary", "opened_at", "closed_at"],
  ats_applications: ["outcome", "current_stage", "rejection_reason", "source", "created_at"],
  ats_candidates: ["first_name", "last_name", "email", "phone", "company", "title", "location", "tags"],
  ats_users: ["first_name", "last_name", "email", "status"],
  ats_offers: ["status", "start_date"],
  ats_interviews: ["title", "starting_at", "ending_at", "location"],
};
const CUSTOM_FIELDS: { model: string; key: string; label: string }[] = [
  { model: "ats_candidates", key: "notice_period", label: "Notice period" },
  { model: "ats_candidates", key: "linkedin_url", label: "LinkedIn profile" },
  { model: "ats_candidates", key: "salary_expectation", label: "Salary expectation" },
  { model: "ats_applications", key: "ai_interview_score", label: "AI interview score" },
  { model: "ats_applications", key: "ai_interview_url", label: "AI interview report" },
  { model: "ats_jobs", key: "cost_center", label: "Cost center" },
  { model: "ats_jobs", key: "hiring_budget", label: "Hiring budget" },
];

export type FieldSet = { fields: Collection<IntegrationFieldRow>; customFields: Collection<CustomFieldRow> };

export function generateFields(seed: string, createdAt: number): FieldSet {
  const rnd = new Random(`${seed}:fields`);
  const fields = new Collection<IntegrationFieldRow>();
  const rows: IntegrationFieldRow[] = [];
  for (const [model, keys] of Object.entries(DEFAULT_FIELDS)) {
    for (const key of keys) {
      rows.push({
        id: rnd.id(),
        remoteId: `${model}.${key}`,
        key,
        model,
        type: "DEFAULT",
        label: humanize(key),
        passthrough: false,
        changedAt: createdAt,
        deletedAt: null,
        seq: 0,
      });
    }
  }
  for (const c of CUSTOM_FIELDS) {
    rows.push({
      id: rnd.id(),
      remoteId: `${c.model}.custom.${c.key}`,
      key: c.key,
      model: c.model,
      type: "CUSTOM",
      label: c.label,
      passthrough: false,
      changedAt: createdAt,
      deletedAt: null,
      seq: 0,
    });
  }
  fields.load(rows);
  const customFields = new Collection<CustomFieldRow>();
  // The customer's own custom fields; the first two come pre-mapped to the tool's custom fields.
  customFields.load(
    CUSTOM_FIELDS.map((c, i) => ({
      id: rnd.id(),
      remoteId: `cf-${i + 1}`,
      key: c.key,
      model: c.model,
      label: c.label,
      description: `${c.label} (set by the customer)`,
      integrationFieldId: i < 2 ? rows.find((r) => r.type === "CUSTOM" && r.key === c.key)!.id : null,
      changedAt: createdAt,
      deletedAt: null,
      seq: 0,
    })),
  );
  return { fields, customFields };
}

function humanize(key: string): string {
  const s = key.replace(/_/g, " ");
  return s.charAt(0).toUpperCase() + s.slice(1);
}
