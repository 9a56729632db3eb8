/**
 * The writes that create records, shared by the upstream API (create-application) and the admin
 * surface (add a job, add an application), so both produce the same records and touches.
 */
import type { EmploymentType } from "../../../contracts/upstream/index.js";
import { newId } from "../data/random.js";
import { PIPELINES } from "../data/vocabulary.js";
import type { Dataset } from "./dataset.js";
import type { ApplicationRow, AttachmentRow, CandidateRow, JobRow, StageRow } from "./rows.js";

export type NewCandidate = {
  first_name: string;
  last_name: string;
  email_address: string;
  phone_number?: string | null | undefined;
  company?: string | null | undefined;
  title?: string | null | undefined;
  city?: string | undefined;
  country?: string | undefined;
};

export class WriteConflict extends Error {
  override name = "WriteConflict";
}

/**
 * Creates an application for `job`, reusing the candidate with the same email (as ATSs do) unless
 * that candidate already applied to this job.
 */
export function createApplication(
  data: Dataset,
  job: JobRow,
  input: { candidate: NewCandidate; stage: StageRow; source?: string | undefined; attachments?: Omit<AttachmentRow, "createdAt">[] },
): ApplicationRow {
  const at = data.tick();
  const email = input.candidate.email_address.toLowerCase();
  let candidate = data.candidates.find(
    "email",
    (e) => e.toLowerCase() === email,
    (c) => c.deletedAt === null,
  );
  if (
    candidate?.applicationIds.some((id) => data.applications.get(id)?.jobId === job.id && data.applications.get(id)?.deletedAt === null)
  ) {
    throw new WriteConflict(`${input.candidate.email_address} already applied to job ${job.id}`);
  }
  if (!candidate) {
    candidate = data.candidates.insert({
      id: newId(),
      remoteId: String(200000 + data.candidates.size),
      firstName: input.candidate.first_name,
      lastName: input.candidate.last_name,
      email: input.candidate.email_address,
      phone: input.candidate.phone_number ?? null,
      company: input.candidate.company ?? null,
      title: input.candidate.title ?? null,
      city: input.candidate.city ?? job.city,
      country: input.candidate.country ?? job.country,
      source: input.source ?? "Company Website",
      createdAt: at,
      updatedAt: at,
      tagIds: [],
      applicationIds: [],
      changedAt: at,
      deletedAt: null,
      seq: 0,
    } satisfies CandidateRow);
  }
  const app = data.applications.insert({
    id: newId(),
    remoteId: String(300000 + data.applications.size),
    jobId: job.id,
    candidateId: candidate.id,
    stageId: input.stage.id,
    outcome: "PENDING",
    rejectionReasonId: null,
    rejectedAt: null,
    createdAt: at,
    updatedAt: at,
    interviewIds: [],
    offerIds: [],
    changedAt: at,
    deletedAt: null,
    seq: 0,
  });
  candidate.applicationIds = [...candidate.applicationIds, app.id];
  if (candidate.changedAt < at) data.candidates.touch(candidate, at);
  if (input.attachments?.length)
    data.attachments.set(
      app.id,
      input.attachments.map((a) => ({ ...a, createdAt: at })),
    );
  return app;
}

export type NewJob = {
  name: string;
  department?: string | undefined;
  status?: "OPEN" | "CLOSED" | "DRAFT" | "ARCHIVED" | undefined;
  employment_type?: EmploymentType | undefined;
  city?: string | undefined;
  country?: string | undefined;
  /** Stage names in order; default: the first standard pipeline (with "AI Interview"). */
  stages?: string[] | undefined;
};

export function createJob(data: Dataset, input: NewJob): JobRow {
  const at = data.tick();
  const n = data.jobs.size;
  const job = data.jobs.insert({
    id: newId(),
    remoteId: String(40000 + n),
    name: input.name,
    jobCode: `JOB-${1000 + n}`,
    description: `<p>${input.name}</p>`,
    department: input.department ?? "General",
    category: input.department ?? "General",
    employmentType: input.employment_type ?? "FULL_TIME",
    status: input.status ?? "OPEN",
    visibility: "PUBLIC",
    remoteWorkStatus: "HYBRID",
    city: input.city ?? "Berlin",
    country: input.country ?? "DE",
    salaryFrom: 50000,
    salaryTo: 70000,
    weeklyHours: 40,
    experienceLevel: "Mid",
    openedAt: at,
    closedAt: null,
    createdAt: at,
    updatedAt: at,
    stageIds: [],
    hiringTeam: [],
    changedAt: at,
    deletedAt: null,
    seq: 0,
  });
  const names = input.stages?.length ? input.stages : [...PIPELINES[0]!];
  job.stageIds = names.map(
    (name, index) =>
      data.stages.insert({
        id: newId(),
        remoteId: `${job.remoteId}-${index + 1}`,
        jobId: job.id,
        name,
        index,
        changedAt: at,
        deletedAt: null,
        seq: 0,
      }).id,
  );
  return job;
}
