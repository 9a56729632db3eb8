/**
 * What the sync engine needs from the rest of the product, declared here so it depends on nothing
 * else: an ATS reader (the upstream's list pages), a recruiting store (positions and candidates),
 * an integration lookup and a job queue. The proxy wires the implementations in one place
 * (proxy-jobs.ts): ats-reader.ts over the upstream client, recruiting-store.ts over the recruiting
 * API's repositories.
 */
import type { UpstreamPage } from "../../contracts/upstream/index.js";
import type { Queryable } from "../../shared/db/database.js";
import type { MappedApplication, MappedJob } from "./mapping.js";

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

/** The recruiting data the engine writes: set-based upserts keyed on the upstream ids, inside the caller's transaction. */
export interface RecruitingStore {
  upsertPositions(q: Queryable, orgId: string, integrationId: string, jobs: MappedJob[]): Promise<{ created: number; updated: number }>;
  /** Linked positions with a candidate stage, ordered by id, `limit` of them after the id `after`. */
  linkedPositions(q: Queryable, orgId: string, integrationId: string, page: { after: string | null; limit: number }): Promise<LinkedPosition[]>;
  /** The linked positions (with a candidate stage) of these upstream jobs. */
  positionsOfJobs(q: Queryable, orgId: string, integrationId: string, jobIds: string[]): Promise<LinkedPosition[]>;
  upsertCandidates(q: Queryable, orgId: string, apps: PositionedMappedApplication[]): Promise<WriteCounts>;
  unlink(q: Queryable, orgId: string, integrationId: string): Promise<{ positions: number; candidates: number }>;
}

/** Whether an integration may be synced: recorded, not deleted, and its state. */
export interface IntegrationLookup {
  find(integrationId: string): Promise<{ deletedAt: Date | null; status: string | null } | null>;
}

/** The job queue, as far as the engine sends jobs (inside the caller's transaction when `tx` is given). */
export interface SyncQueue {
  send(name: "sync", data: object, opts?: { singletonKey?: string; tx?: Queryable }): Promise<string | null>;
}
