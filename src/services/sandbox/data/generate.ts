/**
 * Deterministic ATS data: the same seed and size always give the same ids and records. Records are
 * dated in the year before a fixed anchor (not "now"), so repeated runs agree byte for byte.
 * 100,000 applications generate in about a second: one PRNG, no per-record allocations beyond the
 * rows themselves.
 */
// The English locale alone: the package root loads every locale (+38 MB RSS, +16 MB heap measured).
import { faker } from "@faker-js/faker/locale/en";
import { Dataset } from "../store/dataset.js";
import type { ApplicationRow, CandidateRow, InterviewRow, JobRow, OfferRow, StageRow, UserRow } from "../store/rows.js";
import { Random } from "./random.js";
import {
  COMPANIES,
  COUNTRIES,
  EMPLOYMENT_TYPES,
  INTERVIEW_STAGE,
  JOB_TITLES,
  PIPELINES,
  REJECTION_REASONS,
  SOURCES,
  STAGE_WEIGHTS,
  TAG_NAMES,
} from "./vocabulary.js";

export const DEFAULT_ANCHOR = Date.parse("2026-01-01T00:00:00.000Z");
const DAY = 86_400_000;

const en = faker.definitions;
const FIRST_NAMES = [...(en.person?.first_name?.generic ?? ["Alex", "Sam", "Robin"])];
const LAST_NAMES = [...(en.person?.last_name?.generic ?? ["Smith", "Jones", "Taylor"])];
const CITIES = [...(en.location?.city_name ?? ["Berlin", "London"])];

export type GenerateOptions = { seed: number | string; applications: number; anchor?: number; clock?: () => number };

/** What the generators share: the seeded random source, the anchor time, and `seen` (the latest change time so far). */
type Gen = { rnd: Random; anchor: number; seen: (t: number) => number; between: (from: number, to: number) => number };

/** The ATS's users (recruiters, hiring managers); the first is an admin. */
function generateUsers(g: Gen, count: number): UserRow[] {
  const { rnd, anchor, seen } = g;
  const users: UserRow[] = [];
  for (let i = 0; i < count; i++) {
    const firstName = rnd.pick(FIRST_NAMES);
    const lastName = rnd.pick(LAST_NAMES);
    users.push({
      id: rnd.id(),
      remoteId: String(5000 + i),
      firstName,
      lastName,
      email: `${slug(firstName)}.${slug(lastName)}${i}@hiring.example.com`,
      active: rnd.chance(0.92),
      admin: i === 0,
      changedAt: seen(anchor - rnd.int(1, 300) * DAY),
      deletedAt: null,
      seq: 0,
    });
  }
  return users;
}

/** The job `i` with its stages (a pipeline of PIPELINES); the first three are open. */
function generateJob(g: Gen, i: number, users: UserRow[]): { job: JobRow; own: StageRow[] } {
  const { rnd, anchor, seen } = g;
  const title = rnd.pick(JOB_TITLES);
  const place = rnd.pick(COUNTRIES);
  const createdAt = anchor - rnd.int(20, 365) * DAY - rnd.int(0, DAY);
  // The first three jobs are always open so every dataset has applications to work on.
  const status = i < 3 ? "OPEN" : rnd.weighted(["OPEN", "CLOSED", "DRAFT", "ARCHIVED"] as const, [80, 10, 5, 5]);
  const salaryFrom = rnd.int(35, 110) * 1000;
  const job: JobRow = {
    id: rnd.id(),
    remoteId: String(40000 + i),
    name: title.name,
    jobCode: `JOB-${1000 + i}`,
    description: `<p>We are looking for a ${title.name} to join our ${title.department} team.</p>`,
    department: title.department,
    category: title.category,
    employmentType: rnd.pick(EMPLOYMENT_TYPES),
    status,
    visibility: rnd.weighted(["PUBLIC", "INTERNAL"] as const, [85, 15]),
    remoteWorkStatus: rnd.pick(["REMOTE", "HYBRID", "ON_SITE"] as const),
    city: rnd.pick(CITIES),
    country: place.country,
    salaryFrom,
    salaryTo: salaryFrom + rnd.int(10, 40) * 1000,
    weeklyHours: 40,
    experienceLevel: title.level,
    openedAt: createdAt + rnd.int(0, 3) * DAY,
    closedAt: status === "CLOSED" || status === "ARCHIVED" ? anchor - rnd.int(1, 15) * DAY : null,
    createdAt,
    updatedAt: seen(createdAt + rnd.int(1, 19) * DAY),
    stageIds: [],
    hiringTeam: [
      { userId: rnd.pick(users).id, role: "RECRUITER" },
      { userId: rnd.pick(users).id, role: "HIRING_MANAGER" },
    ],
    changedAt: 0,
    deletedAt: i > 3 && rnd.chance(0.01) ? anchor - rnd.int(1, 10) * DAY : null,
    seq: 0,
  };
  job.changedAt = job.updatedAt;
  const pipeline = rnd.pick(PIPELINES);
  const own = pipeline.map(
    (name, index): StageRow => ({
      id: rnd.id(),
      remoteId: `${job.remoteId}-${index + 1}`,
      jobId: job.id,
      name,
      index,
      changedAt: job.updatedAt,
      deletedAt: null,
      seq: 0,
    }),
  );
  return { job, own };
}

/** A new candidate (the `n`th) applying at `createdAt`, with the list of its applications to grow. */
function newCandidate(g: Gen, n: number, createdAt: number, tagIds: string[]): { candidate: CandidateRow; applicationIds: string[] } {
  const { rnd } = g;
  const firstName = rnd.pick(FIRST_NAMES);
  const lastName = rnd.pick(LAST_NAMES);
  const place = rnd.pick(COUNTRIES);
  const applicationIds: string[] = [];
  const candidate: CandidateRow = {
    id: rnd.id(),
    remoteId: String(200000 + n),
    firstName,
    lastName,
    email: [slug(firstName), ".", slug(lastName), ".", n, "@", rnd.pick(["example.com", "example.org", "example.net"])].join(""),
    phone: rnd.chance(0.7) ? ["+49 15", rnd.int(1, 9), " ", rnd.int(1000000, 9999999)].join("") : null,
    company: rnd.chance(0.6) ? rnd.pick(COMPANIES) : null,
    title: rnd.chance(0.6) ? rnd.pick(JOB_TITLES).name : null,
    city: rnd.pick(CITIES),
    country: place.country,
    source: rnd.pick(SOURCES),
    createdAt,
    updatedAt: createdAt,
    tagIds: rnd.chance(0.3) ? [rnd.pick(tagIds)] : [],
    applicationIds,
    changedAt: createdAt,
    deletedAt: null,
    seq: 0,
  };
  return { candidate, applicationIds };
}

/** The applications (and their candidates) to the jobs that take them, in stages weighted by STAGE_WEIGHTS. */
function generateApplications(
  g: Gen,
  count: number,
  applyJobs: JobRow[],
  jobStages: Map<string, StageRow[]>,
  reasonIds: string[],
  tagIds: string[],
): { candidates: CandidateRow[]; applications: ApplicationRow[] } {
  const { rnd, anchor, seen, between } = g;
  const candidates: CandidateRow[] = [];
  const applications: ApplicationRow[] = [];
  const appJob = new Map<string, string>();
  // The id lists grown here; rows carry readonly lists (store/rows.ts).
  const candidateApps = new Map<CandidateRow, string[]>();
  for (let i = 0; i < count; i++) {
    const job = rnd.pick(applyJobs);
    const pipeline = jobStages.get(job.id)!;
    const createdAt = between(job.openedAt, anchor - DAY);
    // About one candidate in twelve applies to a second job.
    let candidate = candidates.length > 10 && rnd.chance(0.08) ? rnd.pick(candidates) : undefined;
    // Never twice for the same job: an ATS refuses a duplicate application.
    if (candidate?.applicationIds.some((id) => appJob.get(id) === job.id)) candidate = undefined;
    if (!candidate) {
      const made = newCandidate(g, candidates.length, createdAt, tagIds);
      candidate = made.candidate;
      candidates.push(candidate);
      candidateApps.set(candidate, made.applicationIds);
    }
    const stage = rnd.weighted(pipeline, STAGE_WEIGHTS);
    const updatedAt = seen(between(createdAt, anchor));
    const outcome = stage.name === "Hired" ? "HIRED" : stage.name === "Rejected" ? "DECLINED" : "PENDING";
    const app: ApplicationRow = {
      id: rnd.id(),
      remoteId: String(300000 + i),
      jobId: job.id,
      candidateId: candidate.id,
      stageId: stage.id,
      outcome,
      rejectionReasonId: outcome === "DECLINED" ? rnd.pick(reasonIds) : null,
      rejectedAt: outcome === "DECLINED" ? updatedAt : null,
      createdAt,
      updatedAt,
      interviewIds: [],
      offerIds: [],
      changedAt: updatedAt,
      deletedAt: rnd.chance(0.01) ? updatedAt : null,
      seq: 0,
    };
    candidateApps.get(candidate)!.push(app.id);
    appJob.set(app.id, job.id);
    if (updatedAt > candidate.changedAt) candidate.changedAt = candidate.updatedAt = updatedAt;
    applications.push(app);
  }
  return { candidates, applications };
}

export function generateDataset(opts: GenerateOptions): Dataset {
  const rnd = new Random(opts.seed);
  const anchor = opts.anchor ?? DEFAULT_ANCHOR;
  const data = new Dataset(opts.clock);
  const between = (from: number, to: number) => Math.floor(from + rnd.next() * Math.max(0, to - from));
  let latest = 0;
  const seen = (t: number) => {
    if (t > latest) latest = t;
    return t;
  };
  const g: Gen = { rnd, anchor, seen, between };

  const jobCount = Math.max(3, Math.ceil(opts.applications / 40));
  const userCount = Math.max(6, Math.ceil(jobCount / 4));

  const users = generateUsers(g, userCount);
  data.users.load(users);

  data.tags.load(
    TAG_NAMES.map((name, i) => ({
      id: rnd.id(),
      remoteId: String(700 + i),
      name,
      changedAt: seen(anchor - rnd.int(100, 400) * DAY),
      deletedAt: null,
      seq: 0,
    })),
  );
  data.rejectionReasons.load(
    REJECTION_REASONS.map((name, i) => ({
      id: rnd.id(),
      remoteId: String(900 + i),
      name,
      changedAt: seen(anchor - rnd.int(100, 400) * DAY),
      deletedAt: null,
      seq: 0,
    })),
  );

  const jobs: JobRow[] = [];
  const stages: StageRow[] = [];
  const jobStages = new Map<string, StageRow[]>();
  for (let i = 0; i < jobCount; i++) {
    const { job, own } = generateJob(g, i, users);
    job.stageIds = own.map((s) => s.id);
    jobStages.set(job.id, own);
    stages.push(...own);
    jobs.push(job);
  }
  data.jobs.load(jobs);
  data.stages.load(stages);

  const applyJobs = jobs.filter((j) => j.status === "OPEN" || j.status === "CLOSED");
  const reasonIds = [...data.rejectionReasons.values()].map((r) => r.id);
  const tagIds = [...data.tags.values()].map((t) => t.id);
  const { candidates, applications } = generateApplications(g, opts.applications, applyJobs, jobStages, reasonIds, tagIds);
  const { interviews, offers } = generateInterviewsAndOffers(data, applications, rnd, jobStages, users, seen, anchor);
  // Loaded once complete: the large collections copy their rows into columns (store/columns.ts).
  data.candidates.load(candidates);
  data.applications.load(applications);
  data.interviews.load(interviews);
  data.offers.load(offers);
  data.settle(latest);
  return data;
}

/** ATS interviews for applications at or past an interview stage; offers at Offer/Hired. */
function generateInterviewsAndOffers(
  data: Dataset,
  applications: ApplicationRow[],
  rnd: Random,
  jobStages: Map<string, StageRow[]>,
  users: UserRow[],
  seen: (t: number) => number,
  anchor: number,
): { interviews: InterviewRow[]; offers: OfferRow[] } {
  const interviews: InterviewRow[] = [];
  const offers: OfferRow[] = [];
  for (const app of applications) {
    const pipeline = jobStages.get(app.jobId)!;
    const stage = data.stages.get(app.stageId)!;
    // One ATS interview for the stage the application is in (the AI interview is Hirebridge's own),
    // and one for those that went on to an offer.
    const past = stage.name === "Offer" || stage.name === "Hired";
    const s = past ? pipeline.find((p) => p.name !== "AI Interview" && INTERVIEW_STAGE.test(p.name)) : stage;
    if (s && (past || (s.name !== "AI Interview" && INTERVIEW_STAGE.test(s.name)))) {
      const startingAt = between(rnd, app.createdAt, app.updatedAt);
      const interview: InterviewRow = {
        id: rnd.id(),
        remoteId: String(600000 + interviews.length),
        applicationId: app.id,
        jobId: app.jobId,
        stageId: s.id,
        title: s.name,
        startingAt,
        endingAt: startingAt + 45 * 60_000,
        city: rnd.chance(0.3) ? "Berlin" : null,
        videoUrl: rnd.chance(0.7) ? ["https://meet.example.com/", rnd.id().slice(0, 10)].join("") : null,
        canceled: rnd.chance(0.05),
        userIds: [rnd.pick(users).id],
        createdAt: startingAt - DAY,
        updatedAt: startingAt,
        changedAt: app.changedAt,
        deletedAt: null,
        seq: 0,
      };
      interviews.push(interview);
      app.interviewIds = [interview.id];
    }
    if (stage.name === "Offer" || stage.name === "Hired") {
      const offer: OfferRow = {
        id: rnd.id(),
        remoteId: String(800000 + offers.length),
        applicationId: app.id,
        status: stage.name === "Hired" ? "ACCEPTED" : rnd.pick(["DRAFT", "APPROVED", "SENT"] as const),
        startDate: anchor + rnd.int(14, 90) * DAY,
        createdAt: app.updatedAt,
        updatedAt: app.updatedAt,
        changedAt: seen(app.changedAt),
        deletedAt: null,
        seq: 0,
      };
      offers.push(offer);
      app.offerIds = [offer.id];
    }
  }
  return { interviews, offers };
}

function between(rnd: Random, from: number, to: number): number {
  return Math.floor(from + rnd.next() * Math.max(0, to - from));
}

function slug(s: string): string {
  return (
    s
      .normalize("NFKD")
      .replace(/[^A-Za-z]/g, "")
      .toLowerCase() || "x"
  );
}
