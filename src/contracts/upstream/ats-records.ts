/**
 * Upstream ATS record shapes as they travel on the wire (reference/upstream-kombo.md §4).
 * `T | null` keys are required but nullable; `key?:` keys may be omitted. Datetimes are ISO-8601
 * strings with a time part. Closed enums are closed in the SDK too: any other value fails parsing.
 */

export type * from "./ats-reference-records.js";

export type DateTimeString = string;

export type Location = {
  city?: string | null;
  country?: string | null;
  raw?: string | null;
  state?: string | null;
  street_1?: string | null;
  street_2?: string | null;
  zip_code?: string | null;
};

export type ApplicationOutcome = "PENDING" | "HIRED" | "DECLINED";
export type OfferStatus = "ACCEPTED" | "DECLINED" | "SENT" | "APPROVED" | "DRAFT" | "ABANDONED";
/** Open enums: the SDK accepts other strings too. */
export type JobStatus = "OPEN" | "CLOSED" | "DRAFT" | "ARCHIVED";
export type EmploymentType = "FULL_TIME" | "PART_TIME" | "CONTRACT" | "SEASONAL" | "INTERNSHIP";
export type JobVisibility = "PUBLIC" | "INTERNAL" | "UNLISTED" | "CONFIDENTIAL";
export type RemoteWorkStatus = "REMOTE" | "HYBRID" | "TEMPORARY" | "ON_SITE";
export type SalaryPeriod = "YEAR" | "MONTH" | "TWO_WEEKS" | "WEEK" | "DAY" | "HOUR";
export type HiringTeamRole = "RECRUITER" | "HIRING_MANAGER" | "COORDINATOR" | "SOURCER" | "INTERVIEWER";

export type JobRole = {
  remote_id: string | null;
  remote_label: string | null;
  scope: "SYSTEM" | "JOB" | null;
  unified_type: HiringTeamRole | "ADMIN" | null;
};

/** A stage of one job (`job.stages[]`); the stage a move-stage call must name. */
export type JobStage = { id: string; remote_id: string | null; name: string | null; index?: number | null };

export type ScreeningQuestion = {
  id: string;
  remote_id: string | null;
  title: string | null;
  description: string | null;
  format?: { type: "TEXT"; display_type?: "SINGLE_LINE" | "MULTI_LINE" | "EMAIL" | "URL" | null; max_length?: number | null }
    | { type: "BOOLEAN" }
    | { type: "SINGLE_SELECT"; display_type?: "DROPDOWN" | "RADIO" | null; options: { id: string; remote_id?: string | null; name: string }[] }
    | null;
  category: "EEO" | "DEMOGRAPHIC" | null;
  index?: number | null;
  required: boolean | null;
};

export type JobPosting = {
  id: string;
  remote_id: string | null;
  title: string | null;
  description_html: string | null;
  status: "ACTIVE" | "INACTIVE" | "DRAFT" | null;
  visibility: "PUBLIC" | "INTERNAL" | "UNLISTED" | null;
  url: string | null;
};

export type HiringTeamMember = {
  id: string;
  remote_id: string | null;
  first_name: string | null;
  last_name: string | null;
  email?: string | null;
  hiring_team_roles: HiringTeamRole[];
  job_roles: JobRole[];
};

/** §4.1 `GET /ats/jobs`. */
export type Job = {
  id: string;
  remote_id: string;
  name: string | null;
  job_code: string | null;
  description: string | null;
  confidential: boolean | null;
  weekly_hours: number | null;
  employment_type?: EmploymentType | null;
  status?: JobStatus | null;
  visibility?: JobVisibility | null;
  category: string | null;
  department: string | null;
  post_url: string | null;
  experience_level: string | null;
  remote_work_status?: RemoteWorkStatus | null;
  salary_amount: number | null;
  salary_amount_from: number | null;
  salary_amount_to: number | null;
  salary_currency: string | null;
  salary_period?: SalaryPeriod | null;
  location?: Location | null;
  custom_fields: Record<string, unknown> | null;
  remote_url: string | null;
  opened_at: DateTimeString | null;
  closed_at: DateTimeString | null;
  remote_created_at: DateTimeString | null;
  remote_updated_at: DateTimeString | null;
  contact_id: string | null;
  changed_at: DateTimeString;
  remote_deleted_at: DateTimeString | null;
  stages: JobStage[];
  screening_questions: ScreeningQuestion[];
  job_postings: JobPosting[];
  hiring_team: HiringTeamMember[];
};

export type EmailAddress = { email_address?: string | null; type: string | null };
export type PhoneNumber = { phone_number: string; type?: string | null };
export type SocialMedia = { link?: string | null; type?: string | null; username?: string | null };
export type TagRef = { id: string; remote_id: string | null; name: string | null };
export type StageRef = { id: string; remote_id: string | null; name: string | null; index: number | null };
export type JobRef = { id: string; remote_id: string; name: string | null };

export type ScreeningQuestionAnswer = {
  question: { remote_id: string | null; title: string; type: "TEXT" | "BOOLEAN" | "SINGLE_SELECT" };
  answer: { content: string | null } | { checked: boolean | null } | { choice: string | null };
};

/** §4.2 `GET /ats/applications`. */
export type Application = {
  id: string;
  remote_id: string | null;
  outcome: ApplicationOutcome | null;
  rejection_reason_name: string | null;
  rejected_at: DateTimeString | null;
  current_stage_id: string | null;
  job_id: string | null;
  candidate_id: string | null;
  screening_question_answers?: ScreeningQuestionAnswer[] | null;
  custom_fields: Record<string, unknown> | null;
  remote_url: string | null;
  changed_at: DateTimeString;
  remote_deleted_at: DateTimeString | null;
  remote_created_at: DateTimeString | null;
  remote_updated_at: DateTimeString | null;
  candidate: {
    id: string;
    remote_id: string;
    first_name: string | null;
    last_name: string | null;
    email_addresses?: EmailAddress[] | null;
    phone_numbers?: PhoneNumber[] | null;
    social_media?: SocialMedia[] | null;
    source: string | null;
    remote_url: string | null;
    tags: TagRef[];
  } | null;
  current_stage: StageRef | null;
  job: JobRef | null;
  interviews: {
    id: string;
    remote_id: string | null;
    title: string | null;
    starting_at: DateTimeString | null;
    ending_at: DateTimeString | null;
    location?: Location | null;
    canceled: boolean | null;
  }[];
  offers: { id: string; remote_id: string | null; status: OfferStatus | null }[];
};

/** §4.3 `GET /ats/candidates`. */
export type Candidate = {
  id: string;
  remote_id: string;
  first_name: string | null;
  last_name: string | null;
  company: string | null;
  title: string | null;
  confidential: boolean | null;
  source: string | null;
  phone_numbers?: PhoneNumber[] | null;
  email_addresses?: EmailAddress[] | null;
  social_media?: SocialMedia[] | null;
  location?: Location | null;
  custom_fields: Record<string, unknown> | null;
  remote_url: string | null;
  remote_created_at: DateTimeString | null;
  remote_updated_at: DateTimeString | null;
  changed_at: DateTimeString;
  remote_deleted_at: DateTimeString | null;
  applications: {
    id: string;
    remote_id: string | null;
    outcome: ApplicationOutcome | null;
    rejection_reason_name: string | null;
    rejected_at: DateTimeString | null;
    remote_url: string | null;
    changed_at: DateTimeString;
    remote_created_at: DateTimeString | null;
    remote_updated_at: DateTimeString | null;
    current_stage: StageRef | null;
    job: JobRef | null;
  }[];
  tags: TagRef[];
};

/** §4.2b: the answer of `POST /ats/jobs/{job_id}/applications` (`data`). */
export type CreatedApplication = Omit<Application, "candidate" | "interviews" | "offers"> & {
  candidate: Omit<Candidate, "applications"> | null;
};
