/**
 * The audit log (services/audit implements it; src/runtime/wiring.ts hands it to the recruiting API,
 * outbound webhooks and the helpers that change data on an organisation's behalf). Every change is
 * recorded in the transaction that makes it, so the entry commits (or rolls back) with the change.
 * Entries are append-only and chained per organisation: each carries
 * `hash = sha256(prev_hash || canonical entry)` (docs/privacy.md, "Audit log").
 *
 * An entry holds ids and numbers only: never a name, an email, a phone, feedback or any free text a
 * person typed. `Q` is the caller's transaction type: the port names no driver.
 */
export interface AuditLog<Q, D = Q> {
  /**
   * Appends `entries` (one or several, possibly of several organisations) in `q`, which must be a
   * transaction: the organisation's chain is locked until it commits, so concurrent writers keep one
   * chain. The time of each entry is the time it is recorded.
   */
  record(q: Q, entries: AuditEntry | readonly AuditEntry[]): Promise<void>;
  /**
   * Appends the entries of changes that committed outside a transaction of their own (a group
   * commit's): `db` is the database handle, not a transaction. One statement per organisation moves
   * the chain's head only if it is still the one the entries were chained on, else the entries are
   * chained again on the new head, so concurrent writers in any process keep one chain. The entries
   * commit just after their change, not with it.
   */
  appendCommitted(db: D, entries: readonly AuditEntry[]): Promise<void>;
}

/**
 * Who made a change. From a request: `auditActorOf(request)` (src/shared/auth/audit-actor.ts);
 * from a scheduled job: `systemActor("retention")`.
 */
export type AuditActor = {
  /** The token's `sub` (a user or a service account), or `system:<job>` for scheduled work. */
  sub: string;
  /** The OAuth client the token was issued to (`azp` or `client_id`); null when none. */
  clientId: string | null;
  /** The request's id (X-Request-Id); null outside a request. */
  requestId: string | null;
  /** The caller's address as the API saw it (after the trusted proxies); null outside a request. */
  sourceAddress: string | null;
};

/** Actions recorded, as `<resource>.<verb>`. Lower case, dots and underscores (checked when recorded). */
export type AuditAction =
  | "position.created"
  | "position.updated"
  | "candidate.created"
  | "candidate.updated"
  | "candidate.erased"
  | "candidate.exported"
  | "interview.updated"
  | "interview.graded"
  | "interview.corrected"
  | "data_retention.updated"
  | "webhook_endpoint.created"
  | "webhook_endpoint.updated"
  | "webhook_endpoint.deleted"
  | "webhook_endpoint.secret_rotated"
  | (string & {});

/** One change. */
export type AuditEntry = {
  orgId: string;
  actor: AuditActor;
  action: AuditAction;
  /** What was changed: `position`, `candidate`, `interview`, `webhook_endpoint`, `data_retention`… */
  resourceType: string;
  /** Its id first, then the ids that locate it (e.g. a candidate's position); ids only. */
  resourceIds: readonly string[];
  /** For gradings and corrections: the score before and after (null when there was none). */
  scoreBefore?: number | null;
  scoreAfter?: number | null;
  /** Further facts as numbers or booleans only (e.g. `{ count: 12 }`, retention days): never text. */
  details?: Readonly<Record<string, number | boolean | null>>;
};
