import { eq } from "drizzle-orm";
import type { Queryable } from "../../../shared/db/database.js";
import { candidates } from "../candidates/candidates.tables.js";
import { interviews } from "../interviews/interviews.tables.js";
import { positions } from "../positions/positions.tables.js";

/**
 * What the ATS write-back reads of the recruiting data (the sync module's `WriteBackSource`, wired
 * in src/runtime/wiring.ts): a position's write-back settings with the candidate's application,
 * and the interview result a write-back reports. Both take the caller's transaction.
 */
export const writeBackSource = {
  async target(q: Queryable, positionId: string, candidateId: string) {
    const [position] = await q.select().from(positions).where(eq(positions.id, positionId));
    if (!position) return null;
    const [candidate] = await q
      .select({ applicationId: candidates.upstreamApplicationId })
      .from(candidates)
      .where(eq(candidates.id, candidateId));
    return {
      autoUpdateStages: position.autoUpdateStages,
      integrationId: position.upstreamIntegrationId,
      applicationId: candidate?.applicationId ?? null,
      minScore: position.minScore,
      passedStage: position.passedStage,
      rejectedStage: position.rejectedStage,
      needsReviewedStage: position.needsReviewedStage,
    };
  },

  async result(q: Queryable, positionId: string, candidateId: string) {
    const [position] = await q.select().from(positions).where(eq(positions.id, positionId));
    const [interview] = await q.select().from(interviews).where(eq(interviews.candidateId, candidateId));
    if (!position || !interview) return null;
    return {
      upstreamJobId: position.upstreamJobIdId,
      minScore: position.minScore,
      status: interview.status,
      score: interview.score,
      feedback: interview.feedback,
      link: interview.recordingLink ?? interview.transcriptLink ?? interview.interviewLink,
    };
  },
};
