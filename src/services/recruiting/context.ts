import type { Db, Queryable } from "../../shared/db/database.js";
import type { AuditLog } from "../../shared/ports/audit-log.js";
import type { EventsOut } from "../../shared/ports/events-out.js";
import type { IntegrationOwnership } from "../../shared/ports/integration-ownership.js";
import type { CandidateIntake } from "./candidates/candidate-intake.js";
import type { CandidateListCache } from "./candidates/candidate-list-cache.js";
import type { IdempotentCreate } from "./idempotency/idempotent-create.js";
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
  /** Records the events of changes for the organisation's webhook endpoints (the outbox port). */
  events: EventsOut<Queryable>;
  /** Whether an integration belongs to the caller's organisation, before an upstream link is stored. */
  ownership: IntegrationOwnership;
  /** Where each change is recorded for the organisation's audit log (in the change's transaction); none without it. */
  audit?: AuditLog<Queryable, Db>;
  /** ERASURE_SUPPRESSION_SECRET: the key of an erased candidate's email HMAC (erasure/erasure.ts). */
  erasureKey: string;
  /** Runs a create under its Idempotency-Key, when the request has one. */
  idempotent: IdempotentCreate;
};
