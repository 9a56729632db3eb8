/**
 * What the sync engine reuses from the recruiting API: upserts keyed on the upstream ids, the
 * unlink of an integration, what the ATS write-back reads, and (in ../interviews/interviews.service.ts) the `onInterviewEnded`
 * hook type. All take the caller's transaction.
 */
export {
  upsertPositionedCandidates,
  upsertUpstreamCandidates,
  type PositionedApplication,
  type SkippedApplication,
  type UpsertedCandidate,
  type UpstreamApplication,
} from "./upstream-candidates.repository.js";
export { unlinkIntegration, upsertUpstreamPositions, type UpsertedPosition, type UpstreamJob } from "./upstream-positions.repository.js";
export type { InterviewEndedEvent, RecruitingHooks } from "../interviews/interviews.service.js";
export { writeBackSource } from "./write-back-source.repository.js";
export { createSyncStore, type SyncedPosition } from "./sync-store.js";
