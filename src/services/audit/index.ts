import type { Database } from "../../shared/db/database.js";
import { auditRoutes } from "./audit.routes.js";

export { createAuditLog, purgeExpired, AUDIT_RETENTION_DAYS_DEFAULT } from "./audit-log.js";
export { verifyChain, type ChainReport } from "./verify.js";

/** The audit log's routes for the recruiting API (its HostedRoutes: behind the bearer token and the tenant guard). */
export const auditLogRoutes = (database: Database) => ({ routes: [], orgRoutes: [auditRoutes(database.requestDb)] });
