import { eq, inArray } from "drizzle-orm";
import type { Queryable } from "../../../shared/db/database.js";
import { candidates } from "../candidates/candidates.tables.js";
import { positions } from "../positions/positions.tables.js";
import { interviews } from "./interviews.tables.js";

/**
 * The two pages behind a token link read one candidate each: the candidate's interview page (by
 * the interview's link) and the recruiter's results page of an assessment order (by the
 * candidate's results token).
 */

/** The interview page's row: the interview whose link is one of `links` (the link's known spellings). */
export async function findInterviewPageRow(q: Queryable, links: string[]) {
  const [row] = await q
    .select({
      status: interviews.status,
      candidateName: candidates.name,
      name: positions.name,
      department: positions.department,
      location: positions.location,
      roleDescription: positions.roleDescription,
      acceptedLanguages: positions.acceptedLanguages,
    })
    .from(interviews)
    .innerJoin(candidates, eq(candidates.id, interviews.candidateId))
    .innerJoin(positions, eq(positions.id, candidates.positionId))
    .where(inArray(interviews.interviewLink, links))
    .limit(1);
  return row ?? null;
}

/** The results page's row: the candidate whose results token is `token`, with its position and interview. */
export async function findResultsPageRow(q: Queryable, token: string) {
  const [row] = await q
    .select({
      candidateName: candidates.name,
      positionName: positions.name,
      status: interviews.status,
      score: interviews.score,
      feedback: interviews.feedback,
      transcript: interviews.interviewTranscript,
      endTime: interviews.endTime,
      gradedAt: interviews.gradedAt,
    })
    .from(candidates)
    .innerJoin(positions, eq(positions.id, candidates.positionId))
    .innerJoin(interviews, eq(interviews.candidateId, candidates.id))
    .where(eq(candidates.resultsToken, token))
    .limit(1);
  return row ?? null;
}
