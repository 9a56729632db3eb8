/**
 * What the sync module reuses from the recruiting API, as the interfaces of
 * src/shared/ports/recruiting-sync.ts: the sync engine's store (upserts keyed on the upstream ids,
 * the unlink of an integration), what the ATS write-back reads, and (in
 * ../interviews/interviews.service.ts) the `onInterviewEnded` hook. All take the caller's
 * transaction. The upserts are also exported alone, for the tests.
 */
export {
  upsertPositionedCandidates,
  upsertUpstreamCandidates,
  type SkippedApplication,
  type UpsertedCandidate,
} from "./upstream-candidates.repository.js";
export { unlinkIntegration, upsertUpstreamPositions, type UpsertedPosition } from "./upstream-positions.repository.js";
export type { RecruitingHooks } from "../interviews/interviews.service.js";
export { writeBackSource } from "./write-back-source.repository.js";
export { createSyncStore } from "./sync-store.js";
export { createAssessmentStore } from "./assessment-store.js";
