/**
 * The tools the sandbox offers in its connect page and `GET /tools/{category}`. Ids are from the
 * SDK's closed `integration_tool` enum, so a create-link pre-selecting one passes its validation.
 */
import type { CoverageStatus, IntegrationCategory, Tool } from "../../../contracts/upstream/index.js";

export type ToolEntry = { id: string; label: string; category: IntegrationCategory };

export const TOOLS: readonly ToolEntry[] = [
  { id: "greenhouse", label: "Greenhouse", category: "ATS" },
  { id: "lever", label: "Lever", category: "ATS" },
  { id: "workable", label: "Workable", category: "ATS" },
  { id: "teamtailor", label: "Teamtailor", category: "ATS" },
  { id: "recruitee", label: "Recruitee", category: "ATS" },
  { id: "smartrecruiters", label: "SmartRecruiters", category: "ATS" },
  { id: "ashby", label: "Ashby", category: "ATS" },
  { id: "personio", label: "Personio", category: "HRIS" },
  { id: "bamboohr", label: "BambooHR", category: "HRIS" },
  { id: "hibob", label: "HiBob", category: "HRIS" },
  // The enterprise ATSs that order assessments through their own channel (the upstream's ASSESSMENT category).
  { id: "workday", label: "Workday", category: "ASSESSMENT" },
  { id: "successfactors", label: "SAP SuccessFactors", category: "ASSESSMENT" },
  { id: "smartrecruiters", label: "SmartRecruiters", category: "ASSESSMENT" },
  { id: "greenhouse", label: "Greenhouse", category: "ASSESSMENT" },
  { id: "icims", label: "iCIMS", category: "ASSESSMENT" },
  { id: "oraclerecruiting", label: "Oracle Recruiting", category: "ASSESSMENT" },
  { id: "recruitee", label: "Recruitee", category: "ASSESSMENT" },
  { id: "teamtailor", label: "Teamtailor", category: "ASSESSMENT" },
];

export const findTool = (id: string, category?: IntegrationCategory) =>
  TOOLS.find((t) => t.id === id && (category === undefined || t.category === category));

/** The ATS read models and write actions the sandbox implements (all SUPPORTED). */
export const ATS_READ_MODELS: readonly { id: string; label: string; fields: string[] }[] = [
  { id: "ats_jobs", label: "Jobs", fields: ["name", "status", "department", "stages"] },
  { id: "ats_applications", label: "Applications", fields: ["outcome", "current_stage", "candidate", "job"] },
  { id: "ats_candidates", label: "Candidates", fields: ["first_name", "last_name", "email_addresses", "tags"] },
  { id: "ats_users", label: "Users", fields: ["first_name", "last_name", "email"] },
  { id: "ats_offers", label: "Offers", fields: ["status", "employment_start_date"] },
  { id: "ats_interviews", label: "Interviews", fields: ["title", "starting_at", "ending_at"] },
  { id: "ats_tags", label: "Tags", fields: ["name"] },
  { id: "ats_application_stages", label: "Application stages", fields: ["name"] },
  { id: "ats_rejection_reasons", label: "Rejection reasons", fields: ["name"] },
];
export const ATS_WRITE_ACTIONS: readonly { id: string; label: string; fields: string[] }[] = [
  { id: "ats_move_application_to_stage", label: "Move application to stage", fields: ["stage_id"] },
  { id: "ats_add_application_note", label: "Add note to application", fields: ["content"] },
  { id: "ats_add_application_result_link", label: "Add result link to application", fields: ["label", "url"] },
  { id: "ats_add_candidate_tag", label: "Add tag to candidate", fields: ["tag.name"] },
  { id: "ats_remove_candidate_tag", label: "Remove tag from candidate", fields: ["tag.name"] },
  {
    id: "ats_create_application",
    label: "Create application",
    fields: ["candidate.first_name", "candidate.last_name", "candidate.email_address"],
  },
];

type CoverageEntry = { id: string; label: string; fields: string[] };

/** What an ASSESSMENT tool covers: the packages and orders of the assessment API. */
const ASSESSMENT_READ_MODELS: readonly CoverageEntry[] = [
  { id: "assessment_packages", label: "Assessment packages", fields: ["id", "type", "name", "description"] },
  { id: "assessment_orders", label: "Assessment orders", fields: ["package_id", "status", "candidate", "application", "job"] },
];
const ASSESSMENT_WRITE_ACTIONS: readonly CoverageEntry[] = [
  { id: "assessment_set_packages", label: "Set assessment packages", fields: ["packages"] },
  {
    id: "assessment_update_order_result",
    label: "Update assessment order result",
    fields: ["status", "result_url", "completed_at", "score", "max_score", "attributes", "attachments"],
  },
];

export function assetUrls(origin: string, toolId: string) {
  return {
    logo_url: `${origin}/sandbox/assets/${toolId}/logo.svg`,
    icon_url: `${origin}/sandbox/assets/${toolId}/icon.svg`,
    icon_black_url: `${origin}/sandbox/assets/${toolId}/icon-black.svg`,
  };
}

export function renderTool(t: ToolEntry, origin: string): Tool {
  const cov = (status: CoverageStatus) => (e: CoverageEntry) => ({
    id: e.id,
    label: e.label,
    coverage_status: status,
    fields: e.fields.map((f) => ({ id: f, coverage_status: status })),
  });
  const assessment = t.category === "ASSESSMENT";
  const supported: CoverageStatus = t.category === "ATS" || assessment ? "SUPPORTED" : "UNSUPPORTED";
  return {
    id: t.id,
    label: t.label,
    internal_label: null,
    assets: assetUrls(origin, t.id),
    paid_api_details_markdown: null,
    fast_track_details_markdown: null,
    partner_only_details_markdown: null,
    connection_guide_url: null,
    coverage: {
      read_models: (assessment ? ASSESSMENT_READ_MODELS : ATS_READ_MODELS).map(cov(supported)),
      write_actions: (assessment ? ASSESSMENT_WRITE_ACTIONS : ATS_WRITE_ACTIONS).map(cov(supported)),
      features: [{ id: "webhooks", label: "Webhooks", coverage_status: "SUPPORTED" }],
    },
  };
}
