import type { SQL } from "drizzle-orm";
import type { UpstreamPage } from "../../contracts/upstream/index.js";
import type { Db, Queryable } from "../../shared/db/database.js";
import type { KeysetCursor } from "../../shared/db/keyset-cursor.js";
import type { MappedApplication, MappedJob } from "./mapping.js";

/**
 * What the sync module needs from the services around it, declared here as interfaces and
 * implemented by them structurally (the proxy's integration directory, the recruiting API's
 * repositories, the upstream client); src/runtime/wiring.ts hands the implementations in, so no
 * service imports another's files. The sync engine depends only on these: an ATS reader, a
 * recruiting store, an integration lookup and a queue.
 */

/** An integration as the sync module reads it (the proxy's `integrations` table). */
export type IntegrationView = { id: string; orgId: string; status: string | null; deletedAt: Date | null };

/** An integration as the organisation's list shows it. */
export type OwnedIntegration = {
  id: string;
  tool: string;
  category: string | null;
  status: string | null;
  setupStatus: string | null;
  createdAt: Date;
};
export type OwnedIntegrationPage = { rows: OwnedIntegration[]; last: KeysetCursor | null; more: boolean };

/** A state report of an integration (integration-state-changed); `at` orders reports. */
export type IntegrationStateReport = {
  status?: string | null | undefined;
  setupStatus?: string | null | undefined;
  qaStatus?: string | null | undefined;
  category?: string | null | undefined;
  at: Date;
};

/** Which organisation each integration belongs to, and its state: the proxy's IntegrationDirectory. */
export interface IntegrationLookup {
  find(integrationId: string): Promise<IntegrationView | null>;
  /** The organisation an integration is recorded for (deleted or not), null when not recorded; may answer from a memo. */
  ownerOf(integrationId: string): Promise<string | null>;
  /** Records an integration for an org; null when another org has it. */
  record(input: { id: string; orgId: string; tool: string; category?: string | null | undefined }): Promise<IntegrationView | null>;
  /** Applied when newer than the last report; false when older or the integration is unknown. */
  setState(integrationId: string, state: IntegrationStateReport): Promise<boolean>;
  markDeleted(integrationId: string, at?: Date): Promise<boolean>;
  /** One page of an organisation's live integrations, oldest first (keyset on created_at, id). */
  listOwned(orgId: string, page: { limit?: number | undefined; after?: KeysetCursor | undefined }): Promise<OwnedIntegrationPage>;
  /** Every ATS integration that is neither deleted nor paused (the weekly full sync). */
  listSyncable(): Promise<{ id: string; orgId: string }[]>;
  /** Resolves when the integration belongs to `orgId`, else throws the 404 the caller answers. */
  requireOwned(integrationId: string, orgId: string, requestId: string, log?: { info: (...args: never[]) => void }): Promise<void>;
  /** The upstream's integration details (status only is read here). */
  details(integrationId: string, requestId: string, opts: { bypass?: boolean }): Promise<{ status: number }>;
}

/** An interview that just ended, as the recruiting API reports it (its `onInterviewEnded` hook). */
export type InterviewEnded = {
  organizationId: string;
  positionId: string;
  candidateId: string;
  interviewId: string;
  to: string;
  interview: { score: number | null; graded_at: string | null; end_time: string | null };
};

/** The position's write-back settings and the candidate's ATS application, when the position is linked. */
export type WriteBackTarget = {
  autoUpdateStages: boolean;
  integrationId: string | null;
  applicationId: string | null;
  minScore: number | null;
  passedStage: string | null;
  rejectedStage: string | null;
  needsReviewedStage: string | null;
};

/** What a write-back reports to the ATS: the position's job and the candidate's interview. */
export type InterviewResult = {
  upstreamJobId: string | null;
  minScore: number | null;
  status: string;
  score: number | null;
  feedback: string | null;
  /** The recording, else the transcript, else the interview link. */
  link: string | null;
};

/** What the write-back reads of the recruiting data (the recruiting API's repositories). */
export interface WriteBackSource {
  target(q: Queryable, positionId: string, candidateId: string): Promise<WriteBackTarget | null>;
  result(q: Queryable, positionId: string, candidateId: string): Promise<InterviewResult | null>;
}

/** A failure worth retrying later (429, 5xx, timeouts, connection errors); `retryAfterMs` when the upstream said. */
export class RetryableUpstreamError extends Error {
  override name = "RetryableUpstreamError";
  constructor(
    message: string,
    readonly retryAfterMs?: number,
    options: { cause?: unknown } = {},
  ) {
    super(message, options);
  }
}
/** A failure that retrying will not fix (the upstream refused the request: 4xx other than 429). */
export class PermanentUpstreamError extends Error {
  override name = "PermanentUpstreamError";
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}
export const isRetryableUpstreamError = (e: unknown): e is RetryableUpstreamError => e instanceof RetryableUpstreamError;
export const isPermanentUpstreamError = (e: unknown): e is PermanentUpstreamError => e instanceof PermanentUpstreamError;

/** Typed list pages and actions of the upstream's unified ATS API; failures are the two errors above. */
export interface AtsReader {
  page<T>(integrationId: string, path: string, query: Record<string, string>, requestId?: string): Promise<UpstreamPage<T>>;
  action(integrationId: string, method: "PUT" | "POST", path: string, body: unknown, requestId?: string): Promise<void>;
}

export type LinkedPosition = {
  id: string;
  upstreamJobIdId: string;
  candidateStage: string | null;
  acceptedLanguages: string[];
};

/** An application to write as a candidate of a position, in the language a new candidate gets. */
export type PositionedMappedApplication = MappedApplication & { positionId: string; language: string };

export type WriteCounts = { created: number; updated: number; skipped: number };

/**
 * A page's record (the sync run's counts and resume point) written in the page's own statement:
 * `lock` selects and locks the run while it is running; `record` is the statement's WITH items
 * that record the page, given its counts and `ok` (true when the page is written). See
 * sync-runs.repository.ts pageRecording.
 */
export type PageRecording = {
  lock: SQL;
  record: (page: { created: SQL; updated: SQL; skipped: number; ok: SQL }) => SQL;
};

/** The recruiting data the engine writes: set-based upserts keyed on the upstream ids, inside the caller's transaction. */
export interface RecruitingStore {
  upsertPositions(q: Queryable, orgId: string, integrationId: string, jobs: MappedJob[]): Promise<{ created: number; updated: number }>;
  /** Linked positions with a candidate stage, ordered by id, `limit` of them after the id `after`. */
  linkedPositions(
    q: Queryable,
    orgId: string,
    integrationId: string,
    page: { after: string | null; limit: number },
  ): Promise<LinkedPosition[]>;
  /** The linked positions (with a candidate stage) of these upstream jobs. */
  positionsOfJobs(q: Queryable, orgId: string, integrationId: string, jobIds: string[]): Promise<LinkedPosition[]>;
  upsertCandidates(q: Queryable, orgId: string, apps: PositionedMappedApplication[]): Promise<WriteCounts>;
  /**
   * Writes the page and its record in one statement, on the database (no transaction): whether it
   * was recorded (false: the run is no longer running, nothing written), or null when an
   * application met a candidate by email that is not its own (nothing written: the caller writes
   * the page with upsertCandidates in a transaction). A store without it is written that way always.
   */
  upsertCandidatesRecorded?(
    db: Db,
    orgId: string,
    apps: PositionedMappedApplication[],
    recording: PageRecording,
  ): Promise<{ recorded: boolean } | null>;
  unlink(q: Queryable, orgId: string, integrationId: string): Promise<{ positions: number; candidates: number }>;
}

/** The job queue, as far as the engine sends jobs (inside the caller's transaction when `tx` is given). */
export interface SyncQueue {
  send(name: "sync", data: object, opts?: { singletonKey?: string; tx?: Queryable }): Promise<string | null>;
}
