import type { Queryable } from "../../../shared/db/database.js";
import type { EventsOut } from "../../../shared/ports/events-out.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The outbound events of a sync upsert statement of many rows (the EventsOut port): `returning`, a
 * RETURNING column `ev` with each row's API answer as JSON text, computed only when an endpoint of
 * the organisation subscribes (one probe for the statement), and `items`, the WITH items that
 * record `<kind>.created` for the rows inserted and `<kind>.updated` for the others, read from the
 * statement's own rows `rows` (which carry `inserted` and `ev`). Both are empty without endpoints
 * to record for (the port that records nothing): the statement is then as it was.
 */
export function upsertEvents(
  events: EventsOut<Queryable>,
  opts: { kind: "candidate" | "position"; orgId: string; rows: string; target: string; json: (alias: string) => string },
): { returning: string; items: string } {
  if (!UUID.test(opts.orgId)) throw new Error(`not an organisation id: ${opts.orgId}`);
  const org = `'${opts.orgId}'::uuid`;
  const created = `${opts.kind}.created` as const;
  const updated = `${opts.kind}.updated` as const;
  const guard = events.subscribed(org, [created, updated]);
  if (guard === "false") return { returning: "", items: "" };
  const item = (type: typeof created | typeof updated, inserted: boolean) =>
    events.statementItem({
      name: `${type.replace(".", "_")}_event`,
      type,
      from: `(select ev from ${opts.rows} where ${inserted ? "" : "not "}inserted) e`,
      org,
      data: "e.ev",
    });
  const items = [item(created, true), item(updated, false)].filter(Boolean);
  return {
    returning: `, case when ${guard} then ${opts.json(opts.target)} end as ev`,
    items: items.length ? `, ${items.join(",\n")}` : "",
  };
}
