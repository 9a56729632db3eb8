import type { Db } from "../../shared/db/database.js";
import type { CandidateIntake } from "./candidates/candidate-intake.js";
import type { CandidateListCache } from "./candidates/candidate-list-cache.js";
import type { RecruitingHooks } from "./interviews/interviews.service.js";

/** What the route modules need, built once by `buildRecruitingApp`. */
export type RecruitingContext = {
  db: Db;
  /** Base of new interview links (INTERVIEW_BASE_URL, or the API's origin + /interview). */
  interviewBaseUrl: string;
  hooks: RecruitingHooks;
  /** The candidate list answers of this process, each checked against the database's version. */
  candidateLists: CandidateListCache;
  /** Candidate creations, committed together when they arrive together. */
  candidateIntake: CandidateIntake;
};
