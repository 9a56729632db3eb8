/**
 * The sandbox's internal, normalised records. Timestamps are epoch milliseconds (cheap to compare
 * and to keep 100,000s of); the wire shapes are rendered from these per page (render/*.ts), so a
 * change to a candidate shows at once in every application that embeds it. Id lists are readonly:
 * a write replaces the list (rows of the bulk load share theirs with the store, columns.ts).
 */
import type {
  ApplicationOutcome,
  EmploymentType,
  JobStatus,
  JobVisibility,
  OfferStatus,
  RemoteWorkStatus,
} from "../../../contracts/upstream/index.js";

/** What every listed record has: the collection keys on these. */
export type BaseRow = {
  id: string;
  remoteId: string;
  /** When the sandbox last saw a change (the wire's `changed_at`). Strictly increases per record. */
  changedAt: number;
  deletedAt: number | null;
  /** Position in its collection (creation order); set by the collection. */
  seq: number;
};

export type StageRow = BaseRow & { jobId: string; name: string; index: number };

export type JobRow = BaseRow & {
  name: string;
  jobCode: string;
  description: string;
  department: string;
  category: string;
  employmentType: EmploymentType;
  status: JobStatus;
  visibility: JobVisibility;
  remoteWorkStatus: RemoteWorkStatus;
  city: string;
  country: string;
  salaryFrom: number;
  salaryTo: number;
  weeklyHours: number;
  experienceLevel: string;
  openedAt: number;
  closedAt: number | null;
  createdAt: number;
  updatedAt: number;
  stageIds: readonly string[];
  /** User ids with their hiring-team role. */
  hiringTeam: { userId: string; role: "RECRUITER" | "HIRING_MANAGER" }[];
};

export type CandidateRow = BaseRow & {
  firstName: string;
  lastName: string;
  email: string;
  phone: string | null;
  company: string | null;
  title: string | null;
  city: string;
  country: string;
  source: string;
  createdAt: number;
  updatedAt: number;
  tagIds: readonly string[];
  applicationIds: readonly string[];
};

export type ApplicationRow = BaseRow & {
  jobId: string;
  candidateId: string;
  stageId: string;
  outcome: ApplicationOutcome;
  rejectionReasonId: string | null;
  rejectedAt: number | null;
  createdAt: number;
  updatedAt: number;
  interviewIds: readonly string[];
  offerIds: readonly string[];
};

export type UserRow = BaseRow & {
  firstName: string;
  lastName: string;
  email: string;
  active: boolean;
  admin: boolean;
};

export type TagRow = BaseRow & { name: string };

export type RejectionReasonRow = BaseRow & { name: string };

export type OfferRow = BaseRow & {
  applicationId: string;
  status: OfferStatus;
  startDate: number;
  createdAt: number;
  updatedAt: number;
};

export type InterviewRow = BaseRow & {
  applicationId: string;
  jobId: string;
  stageId: string;
  title: string;
  startingAt: number;
  endingAt: number;
  city: string | null;
  videoUrl: string | null;
  canceled: boolean;
  userIds: readonly string[];
  createdAt: number;
  updatedAt: number;
};

/** Write-backs the unified read model does not show; the admin surface does. */
export type NoteRow = { id: string; content: string; content_type: "PLAIN_TEXT"; created_at: string };
export type ResultLinkRow = {
  id: string;
  label: string;
  url: string;
  details: { custom_field_name_prefix: string; attributes: { key: string; value: string }[] } | null;
  created_at: string;
};
export type AttachmentRow = {
  id: string;
  remoteId: string;
  type: "CV" | "COVER_LETTER" | "OTHER";
  fileName: string;
  contentType: string;
  /** Body served at the attachment's data_url. */
  content: Buffer;
  createdAt: number;
};
