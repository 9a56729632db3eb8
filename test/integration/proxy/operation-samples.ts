import type { OperationName } from "../../../src/services/proxy/operations/operations.table.js";
import { upstreamList, type ProxyHarness } from "./proxy-harness.js";

export type Sample = { method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE"; url: string; payload?: unknown };

/** Real ids of the demo integration's records, read from the sandbox. */
export type SampleIds = {
  applicationId: string;
  candidateId: string;
  openJobId: string;
  stageId: string;
  fieldId: string;
  customFieldId: string;
};

export async function sampleIds(h: ProxyHarness): Promise<SampleIds> {
  const applications = await upstreamList<{ id: string; candidate: { id: string } | null; job: { id: string } | null }>(
    h,
    "/ats/applications?page_size=5",
  );
  const jobs = await upstreamList<{ id: string; status: string; stages: { id: string }[] }>(h, "/ats/jobs?statuses=OPEN&page_size=1");
  const id = encodeURIComponent(h.sandbox.demoIntegrationId);
  const fields = await upstreamList<{ id: string }>(h, `/integrations/${id}/integration-fields?page_size=1`);
  const customFields = await upstreamList<{ id: string }>(h, `/integrations/${id}/custom-fields?page_size=1`);
  const app = applications.find((a) => a.candidate);
  const job = jobs[0];
  if (!app?.candidate || !job?.stages[0] || !fields[0] || !customFields[0]) throw new Error("sandbox seed lacks sample records");
  return {
    applicationId: app.id,
    candidateId: app.candidate.id,
    openJobId: job.id,
    stageId: job.stages[0].id,
    fieldId: fields[0].id,
    customFieldId: customFields[0].id,
  };
}

/** One valid request per operation, for the integration `integrationId` (percent-encoded here). */
export function sample(name: OperationName, integrationId: string, ids: SampleIds): Sample {
  const q = `integration_id=${encodeURIComponent(integrationId)}`;
  const i = encodeURIComponent(integrationId);
  const samples: Record<OperationName, Sample> = {
    checkApiKey: { method: "GET", url: `/api/v1/general/check-api-key?${q}` },
    forceSync: { method: "POST", url: `/api/v1/general/force-sync?${q}&type=FULL` },
    getTools: { method: "GET", url: "/api/v1/general/tools/ats" },
    getIntegration: { method: "GET", url: `/api/v1/integrations/${i}` },
    deleteIntegration: { method: "DELETE", url: `/api/v1/integrations/${i}` },
    relinkIntegration: { method: "POST", url: `/api/v1/integrations/${i}/relink`, payload: { language: "de" } },
    listIntegrationFields: { method: "GET", url: `/api/v1/integrations/${i}/integration-fields?page_size=2` },
    updateIntegrationField: {
      method: "PATCH",
      url: `/api/v1/integrations/${i}/integration-fields/${ids.fieldId}`,
      payload: { enable_passthrough: true },
    },
    listCustomFields: { method: "GET", url: `/api/v1/integrations/${i}/custom-fields?page_size=2` },
    updateCustomFieldMapping: {
      method: "PUT",
      url: `/api/v1/integrations/${i}/custom-fields/${ids.customFieldId}`,
      payload: { integration_field_id: ids.fieldId },
    },
    listApplications: { method: "GET", url: `/api/v1/ats/applications?${q}&page_size=3` },
    moveApplicationStage: {
      method: "PUT",
      url: `/api/v1/ats/applications/${ids.applicationId}/stage?${q}`,
      payload: { stage_id: ids.stageId },
    },
    addApplicationResultLink: {
      method: "POST",
      url: `/api/v1/ats/applications/${ids.applicationId}/result-links?${q}`,
      payload: { label: "AI interview", url: "https://hirebridge.example/r/1" },
    },
    addApplicationNote: {
      method: "POST",
      url: `/api/v1/ats/applications/${ids.applicationId}/notes?${q}`,
      payload: { content: "Strong candidate" },
    },
    listApplicationAttachments: { method: "GET", url: `/api/v1/ats/applications/${ids.applicationId}/attachments?${q}` },
    addCandidateTag: {
      method: "POST",
      url: `/api/v1/ats/candidates/${ids.candidateId}/tags?${q}`,
      payload: { tag: { name: "ai-screened" } },
    },
    removeCandidateTag: {
      method: "DELETE",
      url: `/api/v1/ats/candidates/${ids.candidateId}/tags?${q}`,
      payload: { tag: { name: "ai-screened" } },
    },
    listTags: { method: "GET", url: `/api/v1/ats/tags?${q}` },
    listApplicationStages: { method: "GET", url: `/api/v1/ats/application-stages?${q}&page_size=5` },
    listJobs: { method: "GET", url: `/api/v1/ats/jobs?${q}&page_size=2` },
    createJobApplication: {
      method: "POST",
      url: `/api/v1/ats/jobs/${ids.openJobId}/applications?${q}`,
      payload: { candidate: { first_name: "Ada", last_name: "Lovelace", email_address: "ada@example.com" } },
    },
    listUsers: { method: "GET", url: `/api/v1/ats/users?${q}&page_size=2` },
    listOffers: { method: "GET", url: `/api/v1/ats/offers?${q}&page_size=2` },
    listRejectionReasons: { method: "GET", url: `/api/v1/ats/rejection-reasons?${q}` },
    listInterviews: { method: "GET", url: `/api/v1/ats/interviews?${q}&page_size=2` },
    getAssessmentPackages: { method: "GET", url: `/api/v1/assessment/packages?${q}` },
    setAssessmentPackages: {
      method: "PUT",
      url: `/api/v1/assessment/packages?${q}`,
      payload: { packages: [{ id: "pkg-1", type: "VIDEO_INTERVIEW", name: "AI interview", description: "A 20-minute interview" }] },
    },
    listAssessmentOrders: { method: "GET", url: `/api/v1/assessment/orders?${q}&page_size=2` },
    updateAssessmentOrderResult: {
      method: "PUT",
      url: `/api/v1/assessment/orders/order-1/result?${q}`,
      payload: { status: "COMPLETED", result_url: "https://hirebridge.example/r/1", score: 80, max_score: 100 },
    },
    createConnectLink: {
      method: "POST",
      url: "/api/v1/connect/create-link",
      payload: { end_user_email: "it@acme.example", end_user_organization_name: "Acme", integration_category: "ATS" },
    },
    activateConnection: { method: "POST", url: "/api/v1/connect/activate", payload: { activation_token: "not-a-real-token" } },
  };
  return samples[name];
}
