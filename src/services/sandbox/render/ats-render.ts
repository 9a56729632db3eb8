/**
 * Internal rows → the wire records of reference §4. Rendering happens per page, so embedded data
 * (a candidate's tags inside an application) is always current. Jobs, applications and candidates
 * here; the records they reference in ats-reference-render.ts.
 */
import type { Application, Candidate, CreatedApplication, Job, JobRef, StageRef, TagRef } from "../../../contracts/upstream/index.js";
import type { Dataset } from "../store/dataset.js";
import type { ApplicationRow, CandidateRow, InterviewRow, JobRow, StageRow, TagRow, UserRow } from "../store/rows.js";

export const iso = (ms: number) => new Date(ms).toISOString();
export const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms));
const ATS_WEB = "https://ats.example.com";

const stageRef = (s: StageRow | undefined): StageRef | null =>
  s ? { id: s.id, remote_id: s.remoteId, name: s.name, index: s.index } : null;
export const jobRef = (j: JobRow | undefined): JobRef | null => (j ? { id: j.id, remote_id: j.remoteId, name: j.name } : null);
const tagRefs = (data: Dataset, c: CandidateRow): TagRef[] =>
  c.tagIds
    .map((id) => data.tags.get(id))
    .filter((t): t is TagRow => !!t)
    .map((t) => ({ id: t.id, remote_id: t.remoteId, name: t.name }));
const emails = (c: CandidateRow) => [{ email_address: c.email, type: "PRIVATE" }];
const phones = (c: CandidateRow) => (c.phone ? [{ phone_number: c.phone, type: "MOBILE" }] : []);
export const personRef = (c: CandidateRow | undefined) =>
  c ? { id: c.id, remote_id: c.remoteId, first_name: c.firstName, last_name: c.lastName, email_addresses: emails(c) } : null;

export function renderJob(data: Dataset, j: JobRow): Job {
  return {
    id: j.id,
    remote_id: j.remoteId,
    name: j.name,
    job_code: j.jobCode,
    description: j.description,
    confidential: false,
    weekly_hours: j.weeklyHours,
    employment_type: j.employmentType,
    status: j.status,
    visibility: j.visibility,
    category: j.category,
    department: j.department,
    post_url: j.visibility === "PUBLIC" ? `https://careers.example.com/jobs/${j.remoteId}` : null,
    experience_level: j.experienceLevel,
    remote_work_status: j.remoteWorkStatus,
    salary_amount: null,
    salary_amount_from: j.salaryFrom,
    salary_amount_to: j.salaryTo,
    salary_currency: j.country === "GB" ? "GBP" : j.country === "US" ? "USD" : "EUR",
    salary_period: "YEAR",
    location: { city: j.city, country: j.country, raw: `${j.city}, ${j.country}` },
    custom_fields: { cost_center: `CC-${j.department.slice(0, 3).toUpperCase()}` },
    remote_url: `${ATS_WEB}/jobs/${j.remoteId}`,
    opened_at: iso(j.openedAt),
    closed_at: isoOrNull(j.closedAt),
    remote_created_at: iso(j.createdAt),
    remote_updated_at: iso(j.updatedAt),
    contact_id: j.hiringTeam[0]?.userId ?? null,
    changed_at: iso(j.changedAt),
    remote_deleted_at: isoOrNull(j.deletedAt),
    stages: j.stageIds.map((id) => data.stages.get(id)!).map((s) => ({ id: s.id, remote_id: s.remoteId, name: s.name, index: s.index })),
    screening_questions: [],
    job_postings: [
      {
        id: `${j.id.slice(0, 20)}post`,
        remote_id: `${j.remoteId}-p`,
        title: j.name,
        description_html: j.description,
        status: j.status === "OPEN" ? "ACTIVE" : j.status === "DRAFT" ? "DRAFT" : "INACTIVE",
        visibility: j.visibility === "PUBLIC" ? "PUBLIC" : "INTERNAL",
        url: j.visibility === "PUBLIC" ? `https://careers.example.com/jobs/${j.remoteId}` : null,
      },
    ],
    hiring_team: j.hiringTeam
      .map((m) => ({ m, u: data.users.get(m.userId) }))
      .filter((x): x is { m: (typeof j.hiringTeam)[number]; u: UserRow } => !!x.u)
      .map(({ m, u }) => ({
        id: u.id,
        remote_id: u.remoteId,
        first_name: u.firstName,
        last_name: u.lastName,
        email: u.email,
        hiring_team_roles: [m.role],
        job_roles: [
          {
            remote_id: m.role.toLowerCase(),
            remote_label: m.role === "RECRUITER" ? "Recruiter" : "Hiring Manager",
            scope: "JOB",
            unified_type: m.role,
          },
        ],
      })),
  };
}

function applicationBase(data: Dataset, a: ApplicationRow) {
  return {
    id: a.id,
    remote_id: a.remoteId,
    outcome: a.outcome,
    rejection_reason_name: a.rejectionReasonId ? (data.rejectionReasons.get(a.rejectionReasonId)?.name ?? null) : null,
    rejected_at: isoOrNull(a.rejectedAt),
    current_stage_id: a.stageId,
    job_id: a.jobId,
    candidate_id: a.candidateId,
    screening_question_answers: [],
    custom_fields: {},
    remote_url: `${ATS_WEB}/applications/${a.remoteId}`,
    changed_at: iso(a.changedAt),
    remote_deleted_at: isoOrNull(a.deletedAt),
    remote_created_at: iso(a.createdAt),
    remote_updated_at: iso(a.updatedAt),
    current_stage: stageRef(data.stages.get(a.stageId)),
    job: jobRef(data.jobs.get(a.jobId)),
  };
}

export function renderApplication(data: Dataset, a: ApplicationRow): Application {
  const c = data.candidates.get(a.candidateId);
  return {
    ...applicationBase(data, a),
    candidate: c
      ? {
          id: c.id,
          remote_id: c.remoteId,
          first_name: c.firstName,
          last_name: c.lastName,
          email_addresses: emails(c),
          phone_numbers: phones(c),
          social_media: [],
          source: c.source,
          remote_url: `${ATS_WEB}/candidates/${c.remoteId}`,
          tags: tagRefs(data, c),
        }
      : null,
    interviews: a.interviewIds.map((id) => interviewSummary(data.interviews.get(id)!)),
    offers: a.offerIds.map((id) => data.offers.get(id)!).map((o) => ({ id: o.id, remote_id: o.remoteId, status: o.status })),
  };
}

/** The fields of an interview that an application embeds; the interview record (renderInterview) has them too. */
export const interviewSummary = (i: InterviewRow) => ({
  id: i.id,
  remote_id: i.remoteId,
  title: i.title,
  starting_at: iso(i.startingAt),
  ending_at: iso(i.endingAt),
  location: i.city ? { city: i.city } : null,
  canceled: i.canceled,
});

function candidateBase(data: Dataset, c: CandidateRow): Omit<Candidate, "applications"> {
  return {
    id: c.id,
    remote_id: c.remoteId,
    first_name: c.firstName,
    last_name: c.lastName,
    company: c.company,
    title: c.title,
    confidential: false,
    source: c.source,
    phone_numbers: phones(c),
    email_addresses: emails(c),
    social_media: [],
    location: { city: c.city, country: c.country },
    custom_fields: {},
    remote_url: `${ATS_WEB}/candidates/${c.remoteId}`,
    remote_created_at: iso(c.createdAt),
    remote_updated_at: iso(c.updatedAt),
    changed_at: iso(c.changedAt),
    remote_deleted_at: isoOrNull(c.deletedAt),
    tags: tagRefs(data, c),
  };
}

export function renderCandidate(data: Dataset, c: CandidateRow): Candidate {
  return {
    ...candidateBase(data, c),
    applications: c.applicationIds
      .map((id) => data.applications.get(id)!)
      .map((a) => ({
        id: a.id,
        remote_id: a.remoteId,
        outcome: a.outcome,
        rejection_reason_name: a.rejectionReasonId ? (data.rejectionReasons.get(a.rejectionReasonId)?.name ?? null) : null,
        rejected_at: isoOrNull(a.rejectedAt),
        remote_url: `${ATS_WEB}/applications/${a.remoteId}`,
        changed_at: iso(a.changedAt),
        remote_created_at: iso(a.createdAt),
        remote_updated_at: iso(a.updatedAt),
        current_stage: stageRef(data.stages.get(a.stageId)),
        job: jobRef(data.jobs.get(a.jobId)),
      })),
  };
}

export function renderCreatedApplication(data: Dataset, a: ApplicationRow): CreatedApplication {
  const c = data.candidates.get(a.candidateId);
  return { ...applicationBase(data, a), candidate: c ? candidateBase(data, c) : null };
}
