import type { FastifyRequest } from "fastify";
import { auditActorOf } from "../../shared/auth/audit-actor.js";
import type { Queryable } from "../../shared/db/database.js";
import type { AuditActor, AuditEntry, AuditLog } from "../../shared/ports/audit-log.js";

/** The audit log and who is acting: what a change's transaction records its entries with. */
export type Audited = { log: AuditLog<Queryable>; actor: AuditActor };

/** A change to record, without its actor (the request's). */
export type AuditChange = Omit<AuditEntry, "actor">;

/** The request's audit trail, or undefined when the app was built without the audit log. */
export const auditedOf = (log: AuditLog<Queryable> | undefined, request: FastifyRequest): Audited | undefined =>
  log ? { log, actor: auditActorOf(request) } : undefined;

/** Records `changes` in `tx` (the change's own transaction) when the app keeps an audit log. */
export async function recordAudit(tx: Queryable, audited: Audited | undefined, changes: readonly AuditChange[]): Promise<void> {
  if (!audited || changes.length === 0) return;
  await audited.log.record(
    tx,
    changes.map((c) => ({ ...c, actor: audited.actor })),
  );
}
