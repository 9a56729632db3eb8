import { and, asc, eq, gt, inArray, isNotNull, type SQL } from "drizzle-orm";
import type { Queryable } from "../../shared/db/database.js";
import { positions } from "../recruiting/positions/positions.schema.js";
import { unlinkIntegration, upsertPositionedCandidates, upsertUpstreamPositions } from "../recruiting/upstream/index.js";
import type { LinkedPosition, RecruitingStore } from "./ports.js";

export type { LinkedPosition, RecruitingStore } from "./ports.js";

/**
 * The sync engine's recruiting store over the recruiting API's own upserts (keyed on the upstream
 * ids, never touching Hirebridge-owned fields), with the counts a sync run reports.
 */
export function createRecruitingStore(opts: { interviewBaseUrl: string }): RecruitingStore {
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
  const toLinked = (rows: (Omit<LinkedPosition, "upstreamJobIdId"> & { upstreamJobIdId: string | null })[]): LinkedPosition[] =>
    rows.map((r) => ({ ...r, upstreamJobIdId: r.upstreamJobIdId! }));
  return {
    async upsertPositions(q, orgId, integrationId, jobs) {
      const rows = await upsertUpstreamPositions(q, orgId, integrationId, jobs);
      return { created: rows.filter((r) => r.inserted).length, updated: rows.filter((r) => !r.inserted && r.changed).length };
    },

    async linkedPositions(q, orgId, integrationId, page) {
      return toLinked(await linked(q, orgId, integrationId, page.after ? gt(positions.id, page.after) : undefined).limit(page.limit));
    },

    async positionsOfJobs(q, orgId, integrationId, jobIds) {
      return jobIds.length ? toLinked(await linked(q, orgId, integrationId, inArray(positions.upstreamJobIdId, jobIds))) : [];
    },

    async upsertCandidates(q, orgId, apps) {
      const { candidates, skipped } = await upsertPositionedCandidates(
        q,
        orgId,
        apps.map(({ positionId, ...a }) => ({ ...a, position_id: positionId })),
        opts.interviewBaseUrl,
      );
      return {
        created: candidates.filter((c) => c.inserted).length,
        updated: candidates.filter((c) => !c.inserted && c.changed).length,
        skipped: skipped.length,
      };
    },

    unlink: (q, orgId, integrationId) => unlinkIntegration(q, orgId, integrationId),
  };
}
