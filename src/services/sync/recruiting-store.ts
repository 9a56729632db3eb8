import { and, eq, isNotNull } from "drizzle-orm";
import type { Queryable } from "../../shared/db/database.js";
import { positions } from "../recruiting/positions/positions.tables.js";
import { unlinkIntegration, upsertUpstreamCandidates, upsertUpstreamPositions } from "../recruiting/upstream/index.js";
import type { MappedApplication, MappedJob } from "./mapping.js";

export type LinkedPosition = {
  id: string;
  upstreamJobIdId: string;
  candidateStage: string | null;
  acceptedLanguages: string[];
};

/**
 * The sync engine's view of the recruiting data: the recruiting API's own upserts (keyed on the
 * upstream ids, never touching Hirebridge-owned fields), with the counts a sync run reports.
 */
export function createRecruitingStore(opts: { interviewBaseUrl: string }) {
  return {
    async upsertPositions(q: Queryable, orgId: string, integrationId: string, jobs: MappedJob[]) {
      const rows = await upsertUpstreamPositions(q, orgId, integrationId, jobs);
      return { created: rows.filter((r) => r.inserted).length, updated: rows.filter((r) => !r.inserted && r.changed).length };
    },

    async linkedPositions(q: Queryable, orgId: string, integrationId: string): Promise<LinkedPosition[]> {
      const rows = await q
        .select({
          id: positions.id,
          upstreamJobIdId: positions.upstreamJobIdId,
          candidateStage: positions.candidateStage,
          acceptedLanguages: positions.acceptedLanguages,
        })
        .from(positions)
        .where(and(eq(positions.organizationId, orgId), eq(positions.upstreamIntegrationId, integrationId), isNotNull(positions.upstreamJobIdId)))
        .orderBy(positions.id);
      return rows.map((r) => ({ ...r, upstreamJobIdId: r.upstreamJobIdId! }));
    },

    async upsertCandidates(q: Queryable, orgId: string, positionId: string, apps: MappedApplication[], language: string) {
      const { candidates, skipped } = await upsertUpstreamCandidates(
        q,
        orgId,
        positionId,
        apps.map((a) => ({ ...a, language })),
        opts.interviewBaseUrl,
      );
      return {
        created: candidates.filter((c) => c.inserted).length,
        updated: candidates.filter((c) => !c.inserted && c.changed).length,
        skipped: skipped.length,
      };
    },

    unlink: (q: Queryable, orgId: string, integrationId: string) => unlinkIntegration(q, orgId, integrationId),
  };
}
export type RecruitingStore = ReturnType<typeof createRecruitingStore>;
