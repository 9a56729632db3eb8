import type { PositionCreate, PositionUpdate } from "../../../contracts/recruiting/positions.js";
import type { Db, Queryable, Tx } from "../../../shared/db/database.js";
import type { TemplatesChangedHook } from "../../../shared/ports/assessment-orders.js";
import type { EventsOut } from "../../../shared/ports/events-out.js";
import { recordAudit, type Audited } from "../audit-trail.js";
import { createPosition, toPosition, updatePosition } from "./positions.repository.js";
import type { PositionRow } from "./positions.tables.js";

/** Creates the position and records its `position.created` event in the same transaction. */
export async function createPositionWithEvent(
  db: Db,
  events: EventsOut<Queryable>,
  orgId: string,
  body: PositionCreate,
  onTemplates?: TemplatesChangedHook<Tx>,
  audited?: Audited,
): Promise<PositionRow> {
  const row = await db.transaction((tx) => createPositionIn(tx, events, orgId, body, onTemplates, audited));
  events.committed([orgId]);
  return row;
}

/** The position and its `position.created` event, in the caller's transaction (which calls `events.committed`). */
export async function createPositionIn(
  tx: Tx,
  events: EventsOut<Queryable>,
  orgId: string,
  body: PositionCreate,
  onTemplates?: TemplatesChangedHook<Tx>,
  audited?: Audited,
): Promise<PositionRow> {
  const created = await createPosition(tx, orgId, body);
  await events.record(tx, [{ orgId, type: "position.created", data: toPosition(created) }]);
  await recordAudit(tx, audited, [{ orgId, action: "position.created", resourceType: "position", resourceIds: [created.id] }]);
  if (created.state === "template") await onTemplates?.(orgId, tx);
  return created;
}

/** Whether an update may change what the organisation's packages show (a template's name, description, or a state to or from template). */
const touchesPackages = (body: PositionUpdate, row: PositionRow) =>
  body.state !== undefined || (row.state === "template" && (body.name !== undefined || body.role_description !== undefined));

/** The partial update and its `position.updated` event in one transaction; null when the position is not the org's. */
export async function updatePositionWithEvent(
  db: Db,
  events: EventsOut<Queryable>,
  orgId: string,
  id: string,
  body: PositionUpdate,
  onTemplates?: TemplatesChangedHook<Tx>,
  audited?: Audited,
): Promise<PositionRow | null> {
  const row = await db.transaction(async (tx) => {
    const updated = await updatePosition(tx, orgId, id, body);
    if (updated) await events.record(tx, [{ orgId, type: "position.updated", data: toPosition(updated) }]);
    if (updated)
      await recordAudit(tx, audited, [{ orgId, action: "position.updated", resourceType: "position", resourceIds: [updated.id] }]);
    if (updated && touchesPackages(body, updated)) await onTemplates?.(orgId, tx);
    return updated;
  });
  events.committed([orgId]);
  return row;
}
