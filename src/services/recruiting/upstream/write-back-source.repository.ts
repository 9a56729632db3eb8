import { eq } from "drizzle-orm";
import type { Queryable } from "../../../shared/db/database.js";
import type { WriteBackSource, WriteBackTarget } from "../../../shared/ports/recruiting-sync.js";
import { candidates } from "../candidates/candidates.tables.js";
import { interviews } from "../interviews/interviews.tables.js";
import { positions } from "../positions/positions.tables.js";

/**
 * What the ATS write-back's worker reads of the recruiting data (its `WriteBackSource`, wired in
 * src/runtime/wiring.ts): the interview result a write-back reports, as it is when the write-back
 * runs. (What it decides on when the interview ends comes with the event: writeBackTargetOf.)
 */
export const writeBackSource = {
  async result(q: Queryable, positionId: string, candidateId: string) {
    const [position] = await q.select().from(positions).where(eq(positions.id, positionId));
    const [interview] = await q.select().from(interviews).where(eq(interviews.candidateId, candidateId));
    const [candidate] = await q
      .select({ name: candidates.name, resultsToken: candidates.resultsToken })
      .from(candidates)
      .where(eq(candidates.id, candidateId));
    if (!position || !interview || !candidate) return null;
    return {
      upstreamJobId: position.upstreamJobIdId,
      minScore: position.minScore,
      status: interview.status,
      score: interview.score,
      feedback: interview.feedback,
      // Only a link a person can open goes to the ATS (one stored before links were checked may not be).
      link: [interview.recordingLink, interview.transcriptLink, interview.interviewLink].find(isHttpUrl) ?? null,
      stages: { passedStage: position.passedStage, rejectedStage: position.rejectedStage, needsReviewedStage: position.needsReviewedStage },
      report: {
        candidateName: candidate.name,
        positionName: position.name,
        completedAt: (interview.endTime ?? interview.gradedAt)?.toISOString() ?? null,
        resultsToken: candidate.resultsToken,
      },
    };
  },
} satisfies WriteBackSource<Queryable>;

/**
 * A position's write-back settings with the candidate's ATS application, read in the transaction
 * that ends the candidate's interview for the event the write-back hears (InterviewEnded); null
 * when the position is gone.
 */
export async function writeBackTargetOf(q: Queryable, positionId: string, candidateId: string): Promise<WriteBackTarget | null> {
  const [position] = await q.select().from(positions).where(eq(positions.id, positionId));
  if (!position) return null;
  const [candidate] = await q
    .select({ applicationId: candidates.upstreamApplicationId, name: candidates.name, orderId: candidates.upstreamAssessmentOrderId })
    .from(candidates)
    .where(eq(candidates.id, candidateId));
  return {
    positionName: position.name,
    candidateName: candidate?.name ?? null,
    autoUpdateStages: position.autoUpdateStages,
    integrationId: position.upstreamIntegrationId,
    applicationId: candidate?.applicationId ?? null,
    minScore: position.minScore,
    passedStage: position.passedStage,
    rejectedStage: position.rejectedStage,
    needsReviewedStage: position.needsReviewedStage,
    assessmentOrderId: candidate?.orderId ?? null,
  };
}

const isHttpUrl = (u: string | null): u is string => u !== null && /^https?:\/\/[^\s/?#]+/i.test(u);
