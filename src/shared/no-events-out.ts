import type { Queryable } from "./db/database.js";
import type { EventsOut } from "./ports/events-out.js";

/**
 * The EventsOut port that records nothing: for a service built without outbound webhooks (tests of
 * other parts, repositories called on their own). src/runtime/wiring.ts hands the real one in.
 */
export const NO_EVENTS_OUT = {
  record: async () => {},
  statementItem: () => "",
  subscribed: () => "false",
  committed: () => {},
} satisfies EventsOut<Queryable>;
