import { type Static, Type } from "@sinclair/typebox";

/** The audit log's variables (services/audit, docs/privacy.md "Audit log"); read by `serve api`, whose retention job purges it. */
export const AuditConfigSchema = Type.Object({
  AUDIT_RETENTION_DAYS: Type.Integer({
    minimum: 1,
    maximum: 36500,
    default: 400,
    description:
      "Days the audit log's entries are kept; older ones are purged by the retention job (the oldest part of each organisation's chain, which still verifies).",
  }),
});
export type AuditConfig = Static<typeof AuditConfigSchema>;
