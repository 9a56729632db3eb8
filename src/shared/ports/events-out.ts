import type { EventType } from "../../contracts/webhooks-out/events.js";

/**
 * How a service records the events of its changes for the organisation's webhook endpoints
 * (services/webhooks-out implements it; src/runtime/wiring.ts hands it to the recruiting API and
 * the sync module). An event is recorded in the same transaction, or the same statement, as the
 * change that causes it (an outbox): a rolled-back change records nothing, and a committed one is
 * delivered even if the process dies right after the commit. Only events some enabled endpoint of
 * the organisation subscribes to are kept; for an organisation with none, recording is one probe
 * of a small index inside the caller's own statement or transaction.
 *
 * `Q` is the caller's transaction (or database handle) type: the port names no driver.
 */
export interface EventsOut<Q> {
  /** Records `events` in `q` (the change's transaction); one statement for all of them. */
  record(q: Q, events: readonly OutboundEvent[]): Promise<void>;
  /**
   * For a change written as one statement (no transaction around it): the text of a data-modifying
   * WITH item that records one event per row of the statement's own rows. It costs one probe per
   * statement when `org` is a parameter, and nothing more unless the organisation subscribes.
   */
  statementItem(spec: StatementEvents): string;
  /**
   * SQL text of a boolean: whether an enabled endpoint of `org` subscribes to any of `types`. A
   * statement writing many rows computes its events' data only under it (one probe per statement
   * when `org` is a parameter), so a write nobody subscribes to builds no JSON.
   */
  subscribed(org: string, types: readonly EventType[]): string;
  /** The changes of these organisations are committed: their events may go out now (no wait for a poll). */
  committed(orgIds: Iterable<string>): void;
}

/** An event of a change: whose endpoints receive it, its type, and the resource as the API answers it. */
export type OutboundEvent = { orgId: string; type: EventType; data: unknown };

/** The pieces of the caller's statement an event item is made of (each is SQL text of that statement). */
export type StatementEvents = {
  /** The WITH item's name (unique in the statement). */
  name: string;
  type: EventType;
  /** The rows, e.g. `created c`. */
  from: string;
  /** Each row's organisation: a parameter such as `$1::uuid`, or a column such as `c.organization_id`. */
  org: string;
  /** Each row's event data as JSON (json or text holding JSON). */
  data: string;
};
