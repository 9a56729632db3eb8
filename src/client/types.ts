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
  Interview,
  InterviewStatus,
  InterviewUpdate,
  OrgIdResponse,
  Position,
  PositionCreate,
  PositionList,
  PositionListQuery,
  PositionState,
  PositionUpdate,
} from "../contracts/recruiting/index.js";
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
export type {
  IntegrationList,
  IntegrationListQuery,
  IntegrationSummary,
  IntegrationSyncs,
  SyncAllQuery,
  SyncRun,
  WebhookResponse,
  WriteBack,
} from "../contracts/proxy/webhooks.js";
export type {
  Application,
  ApplicationStage,
  Attachment,
  Candidate as AtsCandidate,
  CreatedApplication,
  Interview as AtsInterview,
  Job,
  Offer,
  RejectionReason,
  Tag,
  User as AtsUser,
} from "../contracts/upstream/ats-records.js";
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
