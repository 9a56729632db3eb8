/**
 * The seam between the sync module's assessment channel (services/sync/assessments) and the
 * recruiting API's data, as types only: the organisation's interview packages (its positions in
 * state `template`), and an order made into a position, a candidate and its interview through the
 * recruiting side's own creation path. The recruiting API implements it
 * (services/recruiting/upstream/assessment-store.ts); src/runtime/wiring.ts hands it over.
 */

/** A position in state `template`: an interview package. */
export type InterviewPackage = { id: string; name: string; roleDescription: string | null };

/** An order to make into an interview: whose, which package, the ATS's job and candidate. */
export type OrderIntake = {
  orgId: string;
  integrationId: string;
  orderId: string;
  packageId: string;
  job: { remoteId: string | null; name: string | null };
  candidate: {
    /** The application's id upstream, else one made of the order's id (the candidate's link to it). */
    applicationId: string;
    name: string;
    email: string;
    phone: string | null;
  };
};

/** What an order became; `reason` instead when it cannot become one (a message a recruiter reads). */
export type OrderIntakeResult =
  | { ok: true; positionId: string; candidateId: string; interviewLink: string; created: boolean }
  | { ok: false; reason: string };

/** `Tx`: the caller's transaction; `Q`: any handle to read with (the database or a transaction). */
export interface AssessmentRecruiting<Tx, Q = Tx> {
  /** The organisation's packages (positions in state `template`), oldest first. */
  packages(q: Q, orgId: string): Promise<InterviewPackage[]>;
  /** The package when it is a position of `orgId` in state `template`; else null. */
  findPackage(q: Q, orgId: string, packageId: string): Promise<InterviewPackage | null>;
  /**
   * The order's position (found by the job's id for the integration, else created from the
   * package), its candidate carrying the order (created once: a repeated order finds it) and the
   * candidate's interview, in the caller's transaction, with their outbound events.
   */
  intake(tx: Tx, order: OrderIntake): Promise<OrderIntakeResult>;
  /** The names of these positions and candidates of `orgId` (for the order listing); others are left out. */
  names(q: Q, orgId: string, ids: { positions: string[]; candidates: string[] }): Promise<Map<string, string>>;
}

/**
 * Called inside the transaction that creates or changes a position in a way its package may show
 * (a template created; a name, role description or state changed to or from `template`): the
 * organisation's packages are published again a few seconds after (the sync module's job).
 */
export type TemplatesChangedHook<Tx> = (orgId: string, tx: Tx) => Promise<void>;
