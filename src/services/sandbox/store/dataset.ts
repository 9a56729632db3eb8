/**
 * One integration's ATS data: the collections, a per-dataset monotonic clock, and the writes the
 * upstream API and the admin surface perform. A write touches every record whose wire shape
 * embeds the changed one (a candidate's tag shows in its applications), so `updated_after`
 * returns them as the reference describes for nested changes.
 */
import { Collection } from "./collection.js";
import type { ColumnSpec } from "./columns.js";
import type {
  ApplicationRow,
  AttachmentRow,
  CandidateRow,
  InterviewRow,
  JobRow,
  NoteRow,
  OfferRow,
  RejectionReasonRow,
  ResultLinkRow,
  StageRow,
  TagRow,
  UserRow,
} from "./rows.js";

/**
 * The large collections (one row per application, or about) keep their bulk load in columns
 * (columns.ts). A `sameAs` time is stored as "null, or that field's value" (as generated) with
 * the exceptions aside.
 */
const CANDIDATE_COLUMNS: ColumnSpec<CandidateRow> = {
  id: "ref",
  remoteId: "digits",
  changedAt: { sameAs: "updatedAt" },
  deletedAt: "time",
  firstName: "ref",
  lastName: "ref",
  email: "ref",
  phone: "ref",
  company: "ref",
  title: "ref",
  city: "ref",
  country: "ref",
  source: "ref",
  createdAt: "time",
  updatedAt: "time",
  tagIds: "ids",
  applicationIds: "ids",
};
const APPLICATION_COLUMNS: ColumnSpec<ApplicationRow> = {
  id: "ref",
  remoteId: "digits",
  changedAt: { sameAs: "updatedAt" },
  deletedAt: { sameAs: "updatedAt" },
  jobId: "ref",
  candidateId: "ref",
  stageId: "ref",
  outcome: "ref",
  rejectionReasonId: "ref",
  rejectedAt: { sameAs: "updatedAt" },
  createdAt: "time",
  updatedAt: "time",
  interviewIds: "ids",
  offerIds: "ids",
};
const OFFER_COLUMNS: ColumnSpec<OfferRow> = {
  id: "ref",
  remoteId: "digits",
  changedAt: "time",
  deletedAt: "time",
  applicationId: "ref",
  status: "ref",
  startDate: "time",
  createdAt: { sameAs: "updatedAt" },
  updatedAt: "time",
};
const INTERVIEW_COLUMNS: ColumnSpec<InterviewRow> = {
  id: "ref",
  remoteId: "digits",
  changedAt: "time",
  deletedAt: "time",
  applicationId: "ref",
  jobId: "ref",
  stageId: "ref",
  title: "ref",
  startingAt: "time",
  endingAt: "time",
  city: "ref",
  videoUrl: "ref",
  canceled: "bool",
  userIds: "ids",
  createdAt: "time",
  updatedAt: { sameAs: "startingAt" },
};

export class Dataset {
  readonly jobs = new Collection<JobRow>();
  readonly stages = new Collection<StageRow>().defineIndex("job", "jobId");
  readonly candidates = new Collection<CandidateRow>(CANDIDATE_COLUMNS);
  readonly applications = new Collection<ApplicationRow>(APPLICATION_COLUMNS)
    .defineIndex("job", "jobId")
    .defineIndex("candidate", "candidateId");
  readonly users = new Collection<UserRow>();
  readonly tags = new Collection<TagRow>();
  readonly rejectionReasons = new Collection<RejectionReasonRow>();
  readonly offers = new Collection<OfferRow>(OFFER_COLUMNS).defineIndex("application", "applicationId");
  readonly interviews = new Collection<InterviewRow>(INTERVIEW_COLUMNS)
    .defineIndex("job", "jobId")
    .defineIndex("application", "applicationId");
  readonly notes = new Map<string, NoteRow[]>();
  readonly resultLinks = new Map<string, ResultLinkRow[]>();
  /** Attachments added through create-application; generated CVs are derived (render/attachments.ts). */
  readonly attachments = new Map<string, AttachmentRow[]>();
  #lastAt = 0;

  constructor(private readonly clock: () => number = Date.now) {}

  /** A timestamp later than every change so far, so the change logs stay sorted. */
  tick(): number {
    this.#lastAt = Math.max(this.clock(), this.#lastAt + 1);
    return this.#lastAt;
  }

  /** After bulk generation: later ticks must come after every seeded changed_at. */
  settle(latestSeeded: number): void {
    this.#lastAt = Math.max(this.#lastAt, latestSeeded);
  }

  stageOfJob(job: JobRow, stageId: string): StageRow | undefined {
    return job.stageIds.includes(stageId) ? this.stages.get(stageId) : undefined;
  }

  /** Touches an application and the candidate and offers/interviews that embed it. */
  touchApplication(app: ApplicationRow, at = this.tick()): void {
    app.updatedAt = at;
    this.applications.touch(app, at);
    const candidate = this.candidates.get(app.candidateId);
    if (candidate) this.candidates.touch(candidate, at);
    for (const id of app.offerIds) {
      const offer = this.offers.get(id);
      if (offer) this.offers.touch(offer, at);
    }
    for (const id of app.interviewIds) {
      const interview = this.interviews.get(id);
      if (interview) this.interviews.touch(interview, at);
    }
  }

  /** Touches a candidate and every application that embeds it. */
  touchCandidate(candidate: CandidateRow, at = this.tick()): void {
    candidate.updatedAt = at;
    this.candidates.touch(candidate, at);
    for (const id of candidate.applicationIds) {
      const app = this.applications.get(id);
      if (app) this.applications.touch(app, at);
    }
  }

  moveToStage(app: ApplicationRow, stage: StageRow): void {
    app.stageId = stage.id;
    const name = stage.name.toLowerCase();
    // Outcome follows the ATS's terminal stages, as an ATS would report it.
    if (name === "hired") app.outcome = "HIRED";
    else if (name === "rejected") {
      app.outcome = "DECLINED";
      app.rejectedAt ??= this.clock();
    } else {
      app.outcome = "PENDING";
      app.rejectedAt = null;
      app.rejectionReasonId = null;
    }
    this.touchApplication(app);
  }

  /** Finds the tag by name (case-insensitive) or creates it, as Kombo does. */
  findOrCreateTag(name: string, newId: () => string): TagRow {
    const wanted = name.trim().toLowerCase();
    const existing = this.tags.find(
      "name",
      (n) => n.toLowerCase() === wanted,
      (t) => t.deletedAt === null,
    );
    if (existing) return existing;
    const at = this.tick();
    return this.tags.insert({
      id: newId(),
      remoteId: String(100000 + this.tags.size),
      name: name.trim(),
      changedAt: at,
      deletedAt: null,
      seq: 0,
    });
  }

  addTag(candidate: CandidateRow, tag: TagRow): void {
    if (!candidate.tagIds.includes(tag.id)) candidate.tagIds = [...candidate.tagIds, tag.id];
    this.touchCandidate(candidate);
  }

  /** Removes the tag named `name` from the candidate; false when it does not carry it. */
  removeTag(candidate: CandidateRow, name: string): boolean {
    const wanted = name.trim().toLowerCase();
    const before = candidate.tagIds.length;
    candidate.tagIds = candidate.tagIds.filter((id) => this.tags.get(id)?.name.toLowerCase() !== wanted);
    if (candidate.tagIds.length === before) return false;
    this.touchCandidate(candidate);
    return true;
  }

  addNote(appId: string, note: NoteRow): void {
    const list = this.notes.get(appId) ?? [];
    list.push(note);
    this.notes.set(appId, list);
  }

  addResultLink(appId: string, link: ResultLinkRow): void {
    const list = this.resultLinks.get(appId) ?? [];
    list.push(link);
    this.resultLinks.set(appId, list);
  }
}
