import {
  AssessmentOrderParamsSchema,
  AssessmentOrdersQuerySchema,
  AssessmentQuerySchema,
  AssessmentResultSchema,
  IntegrationIdHeaderSchema,
  SetAssessmentPackagesSchema,
  ApplicationNoteSchema,
  ApplicationParamsSchema,
  ApplicationResultLinkSchema,
  ApplicationsQuerySchema,
  ApplicationStagesQuerySchema,
  ApplicationStageUpdateSchema,
  AtsListQuerySchema,
  AtsWriteQuerySchema,
  CandidateParamsSchema,
  CandidateTagsSchema,
  CheckApiKeyQuerySchema,
  ConnectActivateRequestSchema,
  ConnectCreateLinkRequestSchema,
  CustomFieldMappingSchema,
  CustomFieldParamsSchema,
  CustomFieldsQuerySchema,
  ForceSyncBodySchema,
  ForceSyncQuerySchema,
  GetIntegrationQuerySchema,
  IntegrationFieldParamsSchema,
  IntegrationFieldsQuerySchema,
  IntegrationFieldUpdateSchema,
  IntegrationParamsSchema,
  InterviewsQuerySchema,
  JobApplicationCreateSchema,
  JobParamsSchema,
  JobsQuerySchema,
  OffersQuerySchema,
  RelinkRequestSchema,
  ToolsParamsSchema,
  UsersQuerySchema,
} from "../../../contracts/proxy/index.js";
import type { ProxyOperation } from "./operation.js";

/** A row of the table: an operation without what it derives (see `derive`). */
type OperationRow = Omit<ProxyOperation, "operationId" | "upstream"> & { upstream?: Partial<ProxyOperation["upstream"]> };

/**
 * The operations of `rows`, each completed with what its row leaves out: its `operationId` is its
 * key, and upstream it keeps its method and path and sends `X-Integration-Id` when it is an ATS
 * or assessment operation. A row states only where the upstream differs.
 */
function derive<const T extends Record<string, OperationRow>>(
  rows: T,
): { [K in keyof T]: Omit<T[K], "upstream"> & { operationId: K; upstream: ProxyOperation["upstream"] } } {
  const entries = Object.entries(rows).map(([operationId, { upstream, ...row }]) => [
    operationId,
    {
      operationId,
      ...row,
      upstream: {
        method: row.method,
        path: row.path,
        integrationHeader: row.tag === "Unified ATS" || row.tag === "Assessment",
        ...upstream,
      },
    },
  ]);
  return Object.fromEntries(entries) as never;
}

/**
 * Every operation of spec/integration-proxy.md (General, Integrations, Unified ATS, Connect) and
 * the activation step the spec leaves out, with the upstream operation it becomes
 * (reference/upstream-kombo.md §2). Query renames are the spec's names the upstream spells
 * differently (its list filters are plural). Rows name what differs from the defaults `derive` fills in.
 */
// biome-ignore format: one block per operation, its identity and routing packed into a few lines so the table reads as one
export const OPERATIONS = derive({
  // ── General ──────────────────────────────────────────────────────────────────────────────
  checkApiKey: {
    tag: "General", method: "GET", path: "/general/check-api-key",
    summary: "Check the upstream API key", notes: "Checks that the upstream API key works.",
    tenancy: "query", kind: "read",
    schema: { querystring: CheckApiKeyQuerySchema },
    upstream: { path: "/check-api-key" },
  },
  forceSync: {
    tag: "General", method: "POST", path: "/general/force-sync",
    summary: "Trigger a sync", notes: "Triggers a sync of one integration. The query's `type` (default DELTA) is sent upstream in the body.",
    tenancy: "query", kind: "write",
    schema: { querystring: ForceSyncQuerySchema, body: ForceSyncBodySchema },
    upstream: { path: "/force-sync", integrationHeader: true, consumes: ["type"] },
  },
  getTools: {
    tag: "General", method: "GET", path: "/general/tools/{category}",
    summary: "List the tools of a category", notes: "Path category is hris, ats or assessment.",
    tenancy: "none", kind: "read", cache: "Cached for 5 hours per category.",
    schema: { params: ToolsParamsSchema },
    upstream: { path: "/tools/{category}" },
  },
  // ── Integrations ─────────────────────────────────────────────────────────────────────────
  getIntegration: {
    tag: "Integrations", method: "GET", path: "/integrations/{integration_id}",
    summary: "Get integration details",
    notes: "Returns integration details for display. When bypass_cache is true, fresh data is fetched instead of cached data.",
    tenancy: "path", kind: "read",
    cache: "Cached for INTEGRATION_CACHE_TTL_SECONDS; `bypass_cache=true` fetches fresh data and refreshes the entry. Deleting or relinking the integration, and its state-changed and deleted webhooks, evict it.",
    schema: { params: IntegrationParamsSchema, querystring: GetIntegrationQuerySchema },
    upstream: { consumes: ["bypass_cache"] },
  },
  deleteIntegration: {
    tag: "Integrations", method: "DELETE", path: "/integrations/{integration_id}",
    summary: "Delete an integration", notes: "Deletes the integration; cannot be undone.",
    tenancy: "path", kind: "write",
    schema: { params: IntegrationParamsSchema },
    upstream: { body: "empty-object" },
  },
  relinkIntegration: {
    tag: "Integrations", method: "POST", path: "/integrations/{integration_id}/relink",
    summary: "Create a reconnection link",
    notes: "Creates a link for reconnecting an integration, for example to update credentials.",
    tenancy: "path", kind: "write",
    schema: { params: IntegrationParamsSchema, body: RelinkRequestSchema },
  },
  listIntegrationFields: {
    tag: "Integrations", method: "GET", path: "/integrations/{integration_id}/integration-fields",
    summary: "List integration fields", notes: "All fields of the integration, including the mapping to custom fields.",
    tenancy: "path", kind: "read",
    schema: { params: IntegrationParamsSchema, querystring: IntegrationFieldsQuerySchema },
  },
  updateIntegrationField: {
    tag: "Integrations", method: "PATCH",
    path: "/integrations/{integration_id}/integration-fields/{field_id}",
    summary: "Update an integration field", notes: "Updates the passthrough setting of the field.",
    tenancy: "path", kind: "write",
    schema: { params: IntegrationFieldParamsSchema, body: IntegrationFieldUpdateSchema },
  },
  listCustomFields: {
    tag: "Integrations", method: "GET", path: "/integrations/{integration_id}/custom-fields",
    summary: "List custom fields",
    notes: "All custom fields, including the mapping to the corresponding integration field where one exists.",
    tenancy: "path", kind: "read",
    schema: { params: IntegrationParamsSchema, querystring: CustomFieldsQuerySchema },
  },
  updateCustomFieldMapping: {
    tag: "Integrations", method: "PUT",
    path: "/integrations/{integration_id}/custom-fields/{custom_field_id}",
    summary: "Map a custom field", notes: "Sets the mapping; an existing mapping is replaced.",
    tenancy: "path", kind: "write",
    schema: { params: CustomFieldParamsSchema, body: CustomFieldMappingSchema },
  },
  // ── Unified ATS ──────────────────────────────────────────────────────────────────────────
  listApplications: {
    tag: "Unified ATS", method: "GET", path: "/ats/applications",
    summary: "List applications", tenancy: "query", kind: "read",
    schema: { querystring: ApplicationsQuerySchema },
    upstream: { rename: { outcome: "outcomes" } },
  },
  moveApplicationStage: {
    tag: "Unified ATS", method: "PUT", path: "/ats/applications/{application_id}/stage",
    summary: "Move an application to a stage", tenancy: "query", kind: "write",
    schema: { params: ApplicationParamsSchema, querystring: AtsWriteQuerySchema, body: ApplicationStageUpdateSchema },
  },
  addApplicationResultLink: {
    tag: "Unified ATS", method: "POST", path: "/ats/applications/{application_id}/result-links",
    summary: "Add a result link to an application", tenancy: "query", kind: "write",
    schema: { params: ApplicationParamsSchema, querystring: AtsWriteQuerySchema, body: ApplicationResultLinkSchema },
  },
  addApplicationNote: {
    tag: "Unified ATS", method: "POST", path: "/ats/applications/{application_id}/notes",
    summary: "Add a note to an application", notes: "The only supported content_type is PLAIN_TEXT.",
    tenancy: "query", kind: "write",
    schema: { params: ApplicationParamsSchema, querystring: AtsWriteQuerySchema, body: ApplicationNoteSchema },
  },
  listApplicationAttachments: {
    tag: "Unified ATS", method: "GET", path: "/ats/applications/{application_id}/attachments",
    summary: "List an application's attachments", tenancy: "query", kind: "read",
    schema: { params: ApplicationParamsSchema, querystring: AtsListQuerySchema },
  },
  addCandidateTag: {
    tag: "Unified ATS", method: "POST", path: "/ats/candidates/{candidate_id}/tags",
    summary: "Tag a candidate", tenancy: "query", kind: "write",
    schema: { params: CandidateParamsSchema, querystring: AtsWriteQuerySchema, body: CandidateTagsSchema },
  },
  removeCandidateTag: {
    tag: "Unified ATS", method: "DELETE", path: "/ats/candidates/{candidate_id}/tags",
    summary: "Remove a tag from a candidate", notes: "The tag is named in the JSON body of the DELETE.",
    tenancy: "query", kind: "write",
    schema: { params: CandidateParamsSchema, querystring: AtsWriteQuerySchema, body: CandidateTagsSchema },
  },
  listTags: {
    tag: "Unified ATS", method: "GET", path: "/ats/tags",
    summary: "List tags", tenancy: "query", kind: "read",
    schema: { querystring: AtsListQuerySchema },
  },
  listApplicationStages: {
    tag: "Unified ATS", method: "GET", path: "/ats/application-stages",
    summary: "List application stages", tenancy: "query", kind: "read",
    schema: { querystring: ApplicationStagesQuerySchema },
  },
  listJobs: {
    tag: "Unified ATS", method: "GET", path: "/ats/jobs",
    summary: "List jobs", tenancy: "query", kind: "read",
    schema: { querystring: JobsQuerySchema },
    upstream: { rename: { job_status: "statuses", employment_type: "employment_types" } },
  },
  createJobApplication: {
    tag: "Unified ATS", method: "POST", path: "/ats/jobs/{job_id}/applications",
    summary: "Create an application (and its candidate) for a job",
    notes: "`source`, a name here, is sent upstream as `{\"name\": source}`.",
    tenancy: "query", kind: "write",
    schema: { params: JobParamsSchema, querystring: AtsWriteQuerySchema, body: JobApplicationCreateSchema },
  },
  listUsers: {
    tag: "Unified ATS", method: "GET", path: "/ats/users",
    summary: "List users", tenancy: "query", kind: "read",
    schema: { querystring: UsersQuerySchema },
    upstream: { rename: { email: "emails" } },
  },
  listOffers: {
    tag: "Unified ATS", method: "GET", path: "/ats/offers",
    summary: "List offers", tenancy: "query", kind: "read",
    schema: { querystring: OffersQuerySchema },
    upstream: { rename: { status: "statuses" } },
  },
  listRejectionReasons: {
    tag: "Unified ATS", method: "GET", path: "/ats/rejection-reasons",
    summary: "List rejection reasons", tenancy: "query", kind: "read",
    schema: { querystring: AtsListQuerySchema },
  },
  listInterviews: {
    tag: "Unified ATS", method: "GET", path: "/ats/interviews",
    summary: "List interviews", tenancy: "query", kind: "read",
    schema: { querystring: InterviewsQuerySchema },
  },
  // ── Assessment (issue 40): the integration in the query or, as the upstream's SDK sends it, in X-Integration-Id ──
  getAssessmentPackages: {
    tag: "Assessment", method: "GET", path: "/assessment/packages",
    summary: "List assessment packages", notes: "The packages the ATS offers the recruiter. Not cached.",
    tenancy: "query", integrationFromHeader: true, kind: "read",
    schema: { querystring: AssessmentQuerySchema, headers: IntegrationIdHeaderSchema },
  },
  setAssessmentPackages: {
    tag: "Assessment", method: "PUT", path: "/assessment/packages",
    summary: "Replace the assessment packages", notes: "Replaces the integration's whole list of packages.",
    tenancy: "query", integrationFromHeader: true, kind: "write",
    schema: { querystring: AssessmentQuerySchema, headers: IntegrationIdHeaderSchema, body: SetAssessmentPackagesSchema },
  },
  listAssessmentOrders: {
    tag: "Assessment", method: "GET", path: "/assessment/orders",
    summary: "List assessment orders",
    notes: "Orders placed in the ATS, read live (not cached): the fallback for a missed `assessment:order-received` webhook.",
    tenancy: "query", integrationFromHeader: true, kind: "read",
    schema: { querystring: AssessmentOrdersQuerySchema, headers: IntegrationIdHeaderSchema },
  },
  updateAssessmentOrderResult: {
    tag: "Assessment", method: "PUT", path: "/assessment/orders/{assessment_order_id}/result",
    summary: "Write an order's result",
    notes: "Status, score, attributes and attachments (a file as base64 `data` with `content_type`, or a `data_url`). The status can change only while the order is OPEN.",
    tenancy: "query", integrationFromHeader: true, kind: "write",
    schema: { params: AssessmentOrderParamsSchema, querystring: AssessmentQuerySchema, headers: IntegrationIdHeaderSchema, body: AssessmentResultSchema },
  },
  // ── Connect ──────────────────────────────────────────────────────────────────────────────
  createConnectLink: {
    tag: "Connect", method: "POST", path: "/connect/create-link",
    summary: "Create a connection link",
    notes:
      "Generates a unique link that lets a user enter the embedded connection flow. `end_user_origin_id` is set to the caller's organisation (naming another one answers 403); `enable_filtering` is only accepted for HRIS. Integrations are not deduplicated: to update credentials of an existing integration, use relink.",
    tenancy: "none", kind: "write",
    schema: { body: ConnectCreateLinkRequestSchema },
  },
  activateConnection: {
    tag: "Connect", method: "POST", path: "/connect/activate",
    summary: "Complete the embedded connection flow",
    notes:
      "Hirebridge's completion of the flow (not in the spec): exchanges the activation token the connect UI resolved with, records the integration for the caller's organisation and answers the integration. An integration created for another organisation answers 403.",
    tenancy: "none", kind: "read",
    schema: { body: ConnectActivateRequestSchema },
    upstream: { method: "GET", path: "/connect/integration-by-token/{activation_token}" },
  },
});

export type OperationName = keyof typeof OPERATIONS;
