import type { Queryable } from "../../shared/db/database.js";

/**
 * What the sync module needs from the services around it, declared here as interfaces and
 * implemented by them structurally (the proxy's integration directory, the recruiting API's
 * repositories); src/runtime/wiring.ts hands the implementations in, so no service imports
 * another's files.
 */

/** An integration as the sync module reads it (the proxy's `integrations` table). */
export type IntegrationView = { id: string; orgId: string; status: string | null; deletedAt: Date | null };

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
  /** Records an integration for an org; null when another org has it. */
  record(input: { id: string; orgId: string; tool: string; category?: string | null | undefined }): Promise<IntegrationView | null>;
  /** Applied when newer than the last report; false when older or the integration is unknown. */
  setState(integrationId: string, state: IntegrationStateReport): Promise<boolean>;
  markDeleted(integrationId: string, at?: Date): Promise<boolean>;
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
