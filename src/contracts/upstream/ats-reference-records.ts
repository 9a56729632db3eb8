/**
 * Upstream ATS records other than jobs, applications and candidates (reference/upstream-kombo.md
 * §4.4-4.10): stages, users, offers, rejection reasons, interviews, tags, attachments.
 * Re-exported by ats-records.ts.
 */
import type { ApplicationOutcome, DateTimeString, EmailAddress, JobRef, JobRole, Location, OfferStatus } from "./ats-records.js";

/** §4.4 `GET /ats/application-stages` (deprecated; use `job.stages`). */
export type ApplicationStage = {
  id: string;
  remote_id: string | null;
  name: string | null;
  changed_at: DateTimeString;
  remote_deleted_at: DateTimeString | null;
};

/** §4.5 `GET /ats/users`. */
export type User = {
  id: string;
  remote_id: string | null;
  first_name: string | null;
  last_name: string | null;
  email?: string | null;
  status: "ACTIVE" | "INACTIVE" | null;
  changed_at: DateTimeString;
  remote_deleted_at: DateTimeString | null;
  system_roles: JobRole[];
};

type PersonRef = {
  id: string;
  remote_id: string;
  first_name: string | null;
  last_name: string | null;
  email_addresses?: EmailAddress[] | null;
};

/** §4.6 `GET /ats/offers`. */
export type Offer = {
  id: string;
  remote_id: string | null;
  status: OfferStatus | null;
  employment_start_date: DateTimeString | null;
  application_id: string | null;
  custom_fields: Record<string, unknown> | null;
  changed_at: DateTimeString;
  remote_deleted_at: DateTimeString | null;
  remote_created_at: DateTimeString | null;
  remote_updated_at: DateTimeString | null;
  application: { candidate: PersonRef | null; job: JobRef | null } | null;
};

/** §4.7 `GET /ats/rejection-reasons` (remote_id is NOT nullable here). */
export type RejectionReason = {
  id: string;
  remote_id: string;
  name: string | null;
  changed_at: DateTimeString;
  remote_deleted_at: DateTimeString | null;
};

/** §4.8 `GET /ats/interviews`. */
export type Interview = {
  id: string;
  remote_id: string | null;
  title: string | null;
  starting_at: DateTimeString | null;
  ending_at: DateTimeString | null;
  location?: Location | null;
  video_conferencing_url: string | null;
  application_id: string | null;
  stage_id: string | null;
  canceled: boolean | null;
  remote_created_at: DateTimeString | null;
  remote_updated_at: DateTimeString | null;
  changed_at: DateTimeString;
  remote_deleted_at: DateTimeString | null;
  users: { id: string; remote_id: string | null; first_name: string | null; last_name: string | null; email?: string | null }[];
  application: {
    id: string;
    remote_id: string | null;
    outcome: ApplicationOutcome | null;
    rejection_reason_name: string | null;
    candidate: PersonRef | null;
    job: JobRef | null;
  } | null;
};

/** §4.9 `GET /ats/tags`. */
export type Tag = {
  id: string;
  remote_id: string | null;
  name: string | null;
  changed_at: DateTimeString;
  remote_deleted_at: DateTimeString | null;
};

/** §4.10 `GET /ats/applications/{id}/attachments` (not paginated). */
export type Attachment = {
  type: "CV" | "COVER_LETTER" | "OTHER";
  id: string;
  remote_id: string;
  data_url: string;
  file_name: string;
  content_type: string;
  remote_created_at: DateTimeString | null;
  remote_updated_at: DateTimeString | null;
};
