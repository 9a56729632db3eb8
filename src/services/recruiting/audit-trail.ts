import type { FastifyRequest } from "fastify";
import { auditActorOf } from "../../shared/auth/audit-actor.js";
import type { Db, Queryable } from "../../shared/db/database.js";
import { createGroupCommit } from "../../shared/db/group-commit.js";
import type { AuditActor, AuditEntry, AuditLog } from "../../shared/ports/audit-log.js";

/** The audit log and who is acting: what a change's transaction records its entries with. */
export type Audited = { log: AuditLog<Queryable, Db>; actor: AuditActor };

/** A change to record, without its actor (the request's). */
export type AuditChange = Omit<AuditEntry, "actor">;

/** The request's audit trail, or undefined when the app was built without the audit log. */
export const auditedOf = (log: AuditLog<Queryable, Db> | undefined, request: FastifyRequest): Audited | undefined =>
  log ? { log, actor: auditActorOf(request) } : undefined;

/** Records `changes` in `tx` (the change's own transaction) when the app keeps an audit log. */
export async function recordAudit(tx: Queryable, audited: Audited | undefined, changes: readonly AuditChange[]): Promise<void> {
  if (!audited || changes.length === 0) return;
  await audited.log.record(
    tx,
    changes.map((c) => ({ ...c, actor: audited.actor })),
  );
}

/**
 * Appends audit entries of concurrent requests together, on the project's group commit: one
 * statement per organisation per batch (AuditLog.appendCommitted), one batch at a time, the next
 * gathering what came meanwhile. For a change made by the group commit (a plain candidate create),
 * which runs outside a transaction of its own. Measured with `bench recruiting --guard` (create's
 * CPU over its floor's): a transaction per create, serialised on the organisation's chain, 12.7x;
 * a transaction per batch (five round trips) 3.4–5.7x, since each create's answer waited longer,
 * fewer creates shared each group commit; one statement per batch 2.4x (1.8x without the audit
 * log). Three batches under way at once missed the head nearly every time: they reach Postgres on
 * different connections in any order, so one chained on another's head ran first and failed.
 * The entry commits just after the change, not with it.
 */
function createAuditBatcher(db: Db, log: AuditLog<Queryable, Db>) {
  return createGroupCommit<AuditEntry[], undefined>({
    maxBatch: 500,
    maxInFlight: 1,
    commit: async (items) => {
      await log.appendCommitted(db, items.flat());
      return items.map(() => ({ ok: true, value: undefined }));
    },
  });
}

const batchers = new WeakMap<AuditLog<Queryable, Db>, ReturnType<typeof createAuditBatcher>>();

/** Records `changes` right after a change that committed outside a transaction (see createAuditBatcher). */
export async function recordAuditAfter(db: Db, audited: Audited, changes: readonly AuditChange[]): Promise<void> {
  let batcher = batchers.get(audited.log);
  if (!batcher) {
    batcher = createAuditBatcher(db, audited.log);
    batchers.set(audited.log, batcher);
  }
  await batcher.submit(changes.map((c) => ({ ...c, actor: audited.actor })));
}
