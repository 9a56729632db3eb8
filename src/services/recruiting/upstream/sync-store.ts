import { and, asc, eq, gt, isNotNull, sql, type SQL } from "drizzle-orm";
import type { Db, Queryable } from "../../../shared/db/database.js";
import { positions } from "../positions/positions.tables.js";
import {
  type PageRecording,
  upsertPositionedCandidates,
  type UpstreamApplication,
  writeRecordedPage,
} from "./upstream-candidates.repository.js";
import { unlinkIntegration, writeUpstreamPositions, type UpstreamJob } from "./upstream-positions.repository.js";

/** A position linked to an upstream job, as the sync engine lists them. */
export type SyncedPosition = { id: string; upstreamJobIdId: string; candidateStage: string | null; acceptedLanguages: string[] };

/**
 * The recruiting data as the sync engine writes it (its RecruitingStore, wired in
 * src/runtime/wiring.ts): the upserts keyed on the upstream ids, never touching Hirebridge-owned
 * fields, each one set-based statement per table, with the counts a sync run reports.
 */
export function createSyncStore(opts: { interviewBaseUrl: string }) {
  const linked = (q: Queryable, orgId: string, integrationId: string, ...where: (SQL | undefined)[]) =>
    q
      .select({
        id: positions.id,
        upstreamJobIdId: positions.upstreamJobIdId,
        candidateStage: positions.candidateStage,
        acceptedLanguages: positions.acceptedLanguages,
      })
      .from(positions)
      .where(
        and(
          eq(positions.organizationId, orgId),
          eq(positions.upstreamIntegrationId, integrationId),
          isNotNull(positions.upstreamJobIdId),
          isNotNull(positions.candidateStage),
          ...where,
        ),
      )
      .orderBy(asc(positions.id))
      .$dynamic();
  const toSynced = (rows: (Omit<SyncedPosition, "upstreamJobIdId"> & { upstreamJobIdId: string | null })[]): SyncedPosition[] =>
    rows.map((r) => ({ ...r, upstreamJobIdId: r.upstreamJobIdId! }));

  return {
    async upsertPositions(q: Queryable, orgId: string, integrationId: string, jobs: UpstreamJob[]) {
      const written = await writeUpstreamPositions(q, orgId, integrationId, jobs);
      const created = written.filter((r) => r.inserted).length;
      return { created, updated: written.length - created };
    },

    /** Linked positions with a candidate stage, ordered by id, `limit` of them after the id `after`. */
    async linkedPositions(q: Queryable, orgId: string, integrationId: string, page: { after: string | null; limit: number }) {
      return toSynced(await linked(q, orgId, integrationId, page.after ? gt(positions.id, page.after) : undefined).limit(page.limit));
    },

    /**
     * The job ids are one array parameter: an incremental run looks up the positions of each page
     * it reads, ~240 jobs, and as a list (`inArray`) each was a parameter Drizzle built anew (8 of
     * the ~45 ms of CPU a 1,000-record run took in the syncing process).
     */
    async positionsOfJobs(q: Queryable, orgId: string, integrationId: string, jobIds: string[]) {
      if (!jobIds.length) return [];
      return toSynced(await linked(q, orgId, integrationId, sql`${positions.upstreamJobIdId} = any(${sql.param(jobIds)}::text[])`));
    },

    async upsertCandidates(q: Queryable, orgId: string, apps: (UpstreamApplication & { positionId: string })[]) {
      const { written, skipped } = await upsertPositionedCandidates(
        q,
        orgId,
        apps.map(({ positionId, ...a }) => ({ ...a, position_id: positionId })),
        opts.interviewBaseUrl,
      );
      const created = written.filter((c) => c.inserted).length;
      return { created, updated: written.length - created, skipped: skipped.length };
    },

    upsertCandidatesRecorded: (db: Db, orgId: string, apps: (UpstreamApplication & { positionId: string })[], recording: PageRecording) =>
      writeRecordedPage(
        db,
        orgId,
        apps.map(({ positionId, ...a }) => ({ ...a, position_id: positionId })),
        opts.interviewBaseUrl,
        recording,
      ),

    unlink: (q: Queryable, orgId: string, integrationId: string) => unlinkIntegration(q, orgId, integrationId),
  };
}
