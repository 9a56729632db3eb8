import type { Db, Queryable } from "./db/database.js";
import type { AuditLog } from "./ports/audit-log.js";

/**
 * The AuditLog port that records nothing: for a service built without the audit log (tests of
 * other parts, repositories called on their own). src/runtime/wiring.ts hands the real one in.
 */
export const NO_AUDIT_LOG = { record: async () => {}, appendCommitted: async () => {} } satisfies AuditLog<Queryable, Db>;
