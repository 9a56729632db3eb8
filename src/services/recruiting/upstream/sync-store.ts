import { and, asc, eq, gt, isNotNull, sql, type SQL } from "drizzle-orm";
import type { Db, Queryable } from "../../../shared/db/database.js";
import type {
  LinkedPosition,
  PositionedApplication,
  RecruitingStore,
  SyncPageRecord,
  UpstreamJob,
} from "../../../shared/ports/recruiting-sync.js";
import { NO_EVENTS_OUT } from "../../../shared/no-events-out.js";
import type { EventsOut } from "../../../shared/ports/events-out.js";
import { positions } from "../positions/positions.tables.js";
import { upsertPositionedCandidates, writeRecordedPage } from "./upstream-candidates.repository.js";
import { resolveStageMappings } from "./stage-mappings.repository.js";
import { unlinkIntegration, writeUpstreamPositions } from "./upstream-positions.repository.js";

/**
 * The recruiting data as the sync engine writes it (its RecruitingStore, wired in
 * src/runtime/wiring.ts): the upserts keyed on the upstream ids, never touching Hirebridge-owned
 * fields, each one set-based statement per table, with the counts a sync run reports, and the
 * outbound events of what they write (`events`) in the same statements.
 */
export function createSyncStore(opts: {
  interviewBaseUrl: string;
  events?: EventsOut<Queryable>;
  /** ERASURE_SUPPRESSION_SECRET: an application whose email's HMAC an erasure suppressed is not created. */
  suppressionKey?: string;
}) {
  const events = opts.events ?? NO_EVENTS_OUT;
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
  const toSynced = (rows: (Omit<LinkedPosition, "upstreamJobIdId"> & { upstreamJobIdId: string | null })[]): LinkedPosition[] =>
    rows.map((r) => ({ ...r, upstreamJobIdId: r.upstreamJobIdId! }));

  return {
    async upsertPositions(q: Queryable, orgId: string, integrationId: string, jobs: UpstreamJob[]) {
      const written = await writeUpstreamPositions(q, orgId, integrationId, jobs, events);
      // Name-only stage mappings of these jobs' positions become the stages' ids (issue 42).
      await resolveStageMappings(q, orgId, integrationId, jobs);
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

    async upsertCandidates(q: Queryable, orgId: string, apps: PositionedApplication[]) {
      const { written, skipped } = await upsertPositionedCandidates(q, orgId, apps, opts.interviewBaseUrl, events, opts.suppressionKey);
      const created = written.filter((c) => c.inserted).length;
      return { created, updated: written.length - created, skipped: skipped.length };
    },

    /** The page and its sync run's record in one statement: see writeRecordedPage and syncPageRecording. */
    upsertCandidatesRecorded: (db: Db, orgId: string, apps: PositionedApplication[], record: SyncPageRecord) =>
      writeRecordedPage(db, orgId, apps, opts.interviewBaseUrl, record, events, opts.suppressionKey),

    unlink: (q: Queryable, orgId: string, integrationId: string) => unlinkIntegration(q, orgId, integrationId),
  } satisfies RecruitingStore<Queryable, Db>;
}
