/**
 * The request and response types of both APIs, re-exported from the servers' contracts (type-only:
 * nothing of the schema library reaches the client bundle).
 */
export type {
  Candidate,
  CandidateBulkUpdate,
  CandidateBulkUpdateItem,
  CandidateCreate,
  CandidateList,
  CandidateState,
  CandidateUpdate,
  DataRetention,
  DataRetentionResponse,
  DataRetentionUpdate,
  Interview,
  InterviewStatus,
  InterviewCorrection,
  InterviewUpdate,
  OrgIdResponse,
  Position,
  PositionCreate,
  PositionList,
  PositionListQuery,
  PositionState,
  PositionUpdate,
} from "../contracts/recruiting/index.js";
export type { CandidateErasure, PositionErasure } from "../contracts/recruiting/erasure.js";
export type { CandidateExport } from "../contracts/recruiting/candidate-export.js";
export type {
  ApplicationNote,
  ApplicationResultLink,
  ApplicationsQuery,
  ApplicationStagesQuery,
  ApplicationStageUpdate,
  AtsListQuery,
  CandidateTags,
  ConnectActivateRequest,
  ConnectCreateLinkRequest,
  CustomFieldMapping,
  CustomFieldsQuery,
  ForceSyncQuery,
  IntegrationFieldsQuery,
  IntegrationFieldUpdate,
  InterviewsQuery,
  JobApplicationCreate,
  JobsQuery,
  OffersQuery,
  RelinkRequest,
  UsersQuery,
} from "../contracts/proxy/index.js";
export type { ActivityItem, ActivityKind, ActivityPage, ActivityQuery, ActivityStatus } from "../contracts/proxy/activity.js";
export type {
  IntegrationHealth,
  IntegrationList,
  IntegrationListQuery,
  IntegrationSummary,
  IntegrationUpdate,
  IntegrationSyncs,
  SyncAllQuery,
  QuietRuns,
  SyncRun,
  SyncRunEntry,
  WebhookResponse,
  WriteBack,
} from "../contracts/proxy/webhooks.js";
export type {
  WebhookEventList,
  WebhookEventListQuery,
  WebhookEventRecord,
  WebhookEventStatus,
} from "../contracts/proxy/webhook-events.js";
export type { Application, Candidate as AtsCandidate, CreatedApplication } from "../contracts/upstream/ats-application-records.js";
export type { Job } from "../contracts/upstream/ats-records.js";
export type { AssessmentOrder, AssessmentPackage } from "../contracts/upstream/assessment.js";
export type {
  AssessmentAttachment,
  AssessmentAttribute,
  AssessmentOrdersQuery,
  AssessmentPackageInput,
  AssessmentResult,
} from "../contracts/proxy/assessment.js";
export type {
  AssessmentOrder as ReceivedAssessmentOrder,
  AssessmentOrderListQuery as ReceivedAssessmentOrderQuery,
  AssessmentOrderPage as ReceivedAssessmentOrderPage,
  AssessmentSettings,
  PublishPackagesResult,
} from "../contracts/proxy/assessment-orders.js";
export type {
  ApplicationStage,
  Attachment,
  Interview as AtsInterview,
  Offer,
  RejectionReason,
  Tag,
  User as AtsUser,
} from "../contracts/upstream/ats-reference-records.js";
export type {
  CheckApiKeyResult,
  CustomField,
  ForceSyncResult,
  IntegrationByToken,
  IntegrationDetails,
  IntegrationField,
  LinkResult,
  Tool,
} from "../contracts/upstream/integration-records.js";
export type {
  UpstreamActionSuccess,
  UpstreamErrorEnvelope,
  UpstreamListSuccess,
  UpstreamPage,
  UpstreamSuccess,
} from "../contracts/upstream/envelopes.js";
export type { UserRepresentation, UserRepresentationInput, UserSearchQuery } from "../contracts/token.js";
export type {
  DeliveryListQuery,
  DeliveryStatus,
  ResendAnswer,
  SecretRotation,
  WebhookAttempt,
  WebhookDelivery,
  WebhookDeliveryList,
  WebhookEndpoint,
  WebhookEndpointCreate,
  WebhookEndpointCreated,
  WebhookEndpointList,
  WebhookEndpointUpdate,
  WebhookMessage,
} from "../contracts/webhooks-out/endpoints.js";
export type { EventData, EventType, EventTypeCatalogue } from "../contracts/webhooks-out/events.js";
export type {
  ServiceAccount,
  ServiceAccountCreate,
  ServiceAccountCreated,
  ServiceAccountList,
  ServiceAccountScope,
} from "../contracts/service-accounts/index.js";
