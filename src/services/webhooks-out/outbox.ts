import { sql } from "drizzle-orm";
import { EVENT_TYPES, OPT_IN_EVENT_TYPES, takesEventType, type EventType } from "../../contracts/webhooks-out/events.js";
import type { Queryable } from "../../shared/db/database.js";
import type { EventsOut, StatementEvents } from "../../shared/ports/events-out.js";

/**
 * Whether an enabled endpoint of `org` subscribes to `type` (both SQL expressions): the probe every
 * recorded change makes. With `org` a parameter it is an uncorrelated sub-select, evaluated once
 * per statement on the partial index webhook_endpoints_enabled_idx; an organisation with no
 * endpoint finds no index entry and the statement writes nothing more.
 */
const subscribed = (org: string, type: string) =>
  `exists (select 1 from webhook_endpoints w where w.organization_id = ${org} and not w.disabled and ${takesEventType("w.event_types", type)})`;

/** The same for any of several types (each checked: never spliced into the SQL unchecked). */
const subscribedToAny = (org: string, types: readonly EventType[]) =>
  `exists (select 1 from webhook_endpoints w where w.organization_id = ${org} and not w.disabled and (w.event_types && array[${types.map(checkedType).join(", ")}]::text[] or w.event_types = '{}' and ${optInOnly(types) ? "false" : "true"}))`;

/** Whether every one of `types` is opt-in (an endpoint of every type takes none of them). */
const optInOnly = (types: readonly EventType[]) => types.every((t) => (OPT_IN_EVENT_TYPES as readonly string[]).includes(t));

const checkedType = (type: EventType): string => {
  if (!EVENT_TYPES.includes(type)) throw new Error(`unknown event type ${type}`);
  return `'${type}'`;
};

/**
 * The outbox side of outbound webhooks: the EventsOut port the emitting services use. Events land in
 * `webhook_messages` inside the caller's transaction or statement; `committed` wakes the local
 * dispatcher when the organisation may have endpoints (`mayHaveEndpoints` is a hint, wrong only
 * in a way that delays: the dispatcher also polls).
 */
export function createOutbox(opts: { mayHaveEndpoints(orgId: string): boolean; wake(): void }): EventsOut<Queryable> {
  return {
    async record(q, events) {
      if (events.length === 0) return;
      for (const e of events) checkedType(e.type);
      const rows = JSON.stringify(events.map((e) => ({ o: e.orgId, t: e.type, d: e.data })));
      // json (not jsonb) keeps each event's data as the text it was written as: key order and all.
      await q.execute(sql`
        insert into webhook_messages (organization_id, type, data)
        select e.o, e.t, e.d from json_to_recordset(${rows}::json) as e(o uuid, t text, d json)
         where ${sql.raw(subscribed("e.o", "e.t"))}`);
    },
    statementItem: (s: StatementEvents) =>
      `${s.name} as (
         insert into webhook_messages (organization_id, type, data)
         select ${s.org}, ${checkedType(s.type)}, (${s.data})::json from ${s.from}
          where ${subscribed(s.org, checkedType(s.type))})`,
    subscribed: (org, types) => subscribedToAny(org, types),
    committed(orgIds) {
      for (const org of orgIds) {
        if (opts.mayHaveEndpoints(org)) {
          opts.wake();
          return;
        }
      }
    },
  } satisfies EventsOut<Queryable>;
}
