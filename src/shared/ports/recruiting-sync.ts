/**
 * The seam between the sync module and the recruiting API, as types only: what the sync engine
 * writes into the recruiting data and reads back, what the ATS write-back reads, and what the
 * recruiting API tells the write-back when an interview ends. Both sides import this one module;
 * the recruiting API's repositories implement the interfaces (`satisfies`), the sync module uses
 * them, and src/runtime/wiring.ts hands the one to the other.
 *
 * `Tx` is the caller's connection or transaction as the storage layer types it (shared/db's
 * `Queryable`): the port only says that a method runs inside the caller's transaction, not what a
 * transaction is. No SQL, no table and no column crosses this seam; see
 * `RecruitingStore.upsertCandidatesRecorded` for the one statement that writes on both sides of it.
 */
import type { Interview, InterviewStatus } from "../../contracts/recruiting/interviews.js";
import type { PositionState } from "../../contracts/recruiting/positions.js";

/**
 * An upstream job as the sync engine maps it: the upstream-owned fields of its position. name,
 * department, location and role_description follow the job on every sync; `state` (when given for
 * every job of a page) follows the job's status; `candidate_stage` is an initial value for a NEW
 * position only; everything else on a position is Hirebridge's. Longer text than a column holds is
 * cut by the store.
 */
export type UpstreamJob = {
  upstream_job_id_id: string;
  name: string;
  department?: string | null;
  location?: string | null;
  role_description?: string | null;
  state?: PositionState;
  candidate_stage?: string | null;
  /**
   * The job's stages, when the upstream listed them: a position's stage field that names one of
   * them by name is stored as its id from then on (its mapping survives a rename).
   */
  stages?: { id: string; name: string | null }[];
};

/** An upstream application as the sync engine maps it: the candidate's upstream-owned fields. */
export type UpstreamApplication = {
  upstream_application_id: string;
  name: string;
  email: string;
  phone: string | null;
  /** Used when the candidate is created; Hirebridge owns it afterwards. */
  language: string;
  /** Used when the candidate is created; Hirebridge owns them afterwards. */
  tags?: string[];
};

/** An application to write as a candidate of the position `position_id`. */
export type PositionedApplication = UpstreamApplication & { position_id: string };

/** A position linked to an upstream job, with a candidate stage: the positions whose applications are synced. */
export type LinkedPosition = {
  id: string;
  upstreamJobIdId: string;
  candidateStage: string | null;
  acceptedLanguages: string[];
};

export type WriteCounts = { created: number; updated: number; skipped: number };

/**
 * A page of a sync run as its record counts it: the run's counts grow by the page's, its resume
 * point becomes `resume` (the cursor of the NEXT page, null on the last), and with `finishedAt` the
 * run succeeds and its checkpoint moves to its start. `skipped`: applications the engine skipped
 * before the write (no email address, no stage); `pages`: upstream pages written together.
 */
export type SyncPageRecord = {
  runId: string;
  skipped: number;
  pages: number;
  resume: string | null;
  finishedAt?: Date | undefined;
};

/**
 * The recruiting data as the sync engine writes it: set-based upserts keyed on the upstream ids,
 * never touching Hirebridge-owned fields, inside the caller's transaction `tx`.
 */
export interface RecruitingStore<Tx, Db extends Tx = Tx> {
  upsertPositions(tx: Tx, orgId: string, integrationId: string, jobs: UpstreamJob[]): Promise<{ created: number; updated: number }>;
  /** Linked positions with a candidate stage, ordered by id, `limit` of them after the id `after`. */
  linkedPositions(tx: Tx, orgId: string, integrationId: string, page: { after: string | null; limit: number }): Promise<LinkedPosition[]>;
  /** The linked positions (with a candidate stage) of these upstream jobs. */
  positionsOfJobs(tx: Tx, orgId: string, integrationId: string, jobIds: string[]): Promise<LinkedPosition[]>;
  upsertCandidates(tx: Tx, orgId: string, apps: PositionedApplication[]): Promise<WriteCounts>;
  /**
   * Writes the page AND records it on its sync run (`record`) in ONE statement, on the database
   * (`db`, no transaction around it): the one place where one side writes the other's data. It is
   * one statement because the page and its record must commit together, and a transaction around
   * two statements cost a full sync a tenth of its time in round trips (begin, record, commit;
   * bench/README.md rounds 8 and 9, docs/sync.md). Answers whether the page was recorded (false:
   * the run is no longer running, nothing written), or null when an application met a candidate
   * by email that is not its own (nothing written: the caller writes the page with
   * upsertCandidates in a transaction, and records it itself). A store without it is always
   * written that way.
   */
  upsertCandidatesRecorded?(
    db: Db,
    orgId: string,
    apps: PositionedApplication[],
    record: SyncPageRecord,
  ): Promise<{ recorded: boolean } | null>;
  unlink(tx: Tx, orgId: string, integrationId: string): Promise<{ positions: number; candidates: number }>;
}

/** The position's write-back settings and the candidate's ATS application (null fields: not linked). */
export type WriteBackTarget = {
  /** The names a person reads in the write-back's history. */
  positionName: string;
  candidateName: string | null;
  autoUpdateStages: boolean;
  integrationId: string | null;
  applicationId: string | null;
  minScore: number | null;
  passedStage: string | null;
  rejectedStage: string | null;
  needsReviewedStage: string | null;
  /** The upstream assessment order the candidate came from: its result goes to the order, not to a stage. */
  assessmentOrderId: string | null;
};

/**
 * An interview that just ended (graded, errored or cancelled), as the recruiting API reports it,
 * with what the write-back decides on: the interview, and its position's write-back settings with
 * the candidate's application (`writeBack`), read in the same transaction.
 */
export type InterviewEnded = {
  organizationId: string;
  positionId: string;
  candidateId: string;
  interviewId: string;
  from: InterviewStatus;
  to: "graded" | "errored" | "cancelled";
  interview: Interview;
  writeBack: WriteBackTarget;
  /**
   * Set when a graded result is corrected (the interview stays graded; its score or feedback
   * changed): the write-back then corrects what the ATS was told, saying why.
   */
  correction?: { reason: string; at: string };
};

/**
 * Called inside the transaction that ends an interview, so work can be recorded atomically with
 * the change (the ATS write-back and its job). Throwing rolls the change back.
 */
export type InterviewEndedHook<Tx> = (event: InterviewEnded, tx: Tx) => Promise<void>;

/** What a write-back reports to the ATS: the position's job and the candidate's interview, as they are now. */
export type InterviewResult = {
  upstreamJobId: string | null;
  minScore: number | null;
  status: string;
  score: number | null;
  feedback: string | null;
  /** The recording, else the transcript, else the interview link. */
  link: string | null;
  /** The position's stage mapping as it is now: an operator's retry of a failed write-back takes its stage from it. */
  stages: Pick<WriteBackTarget, "passedStage" | "rejectedStage" | "needsReviewedStage">;
  /** What an assessment order's result shows beyond the above (its report and results page). */
  report: {
    candidateName: string;
    positionName: string;
    /** When the interview ended (or was graded); null when it never did. */
    completedAt: string | null;
    /** The token of the recruiter's results page; null for a candidate that did not come from an order. */
    resultsToken: string | null;
  };
};

/** What the write-back's worker reads of the recruiting data when it runs. */
export interface WriteBackSource<Tx> {
  result(tx: Tx, positionId: string, candidateId: string): Promise<InterviewResult | null>;
}
