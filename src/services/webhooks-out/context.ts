import type { Database, Db, Queryable } from "../../shared/db/database.js";
import type { AuditLog } from "../../shared/ports/audit-log.js";
import type { Resolve, TargetPolicy } from "./targets.js";

/** What the webhooks-out routes need, built once by createWebhooksOut. */
export type WebhooksOutContext = {
  db: Db;
  database: Database;
  /** Where endpoints may point (WEBHOOK_TARGETS). */
  policy: TargetPolicy;
  resolve: Resolve;
  secretOverlapSeconds: number;
  /** A temporary endpoint's life without a keep-alive, seconds (WEBHOOK_TEMP_ENDPOINT_IDLE_MINUTES). */
  tempIdleSeconds: number;
  /** Most endpoints an organisation may have. */
  maxEndpoints: number;
  /** An endpoint of `orgId` was saved or removed (the dispatcher's hint of who has endpoints). */
  endpointsChanged(orgId: string): void;
  /** The organisations' audit log: endpoint and secret changes record their entry in their own transaction. */
  audit: AuditLog<Queryable, Db>;
  /** A temporary endpoint now expires at `at`: the sweep job is to look then (no-op without a job queue). */
  expiresAt(at: Date): void;
  /** Deliveries became due now (a re-send): the dispatcher looks at once. */
  wake(): void;
};
