import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { type DataRetention, DataRetentionResponseSchema, DataRetentionUpdateSchema } from "../../contracts/recruiting/data-retention.js";
import { responses } from "../../contracts/recruiting/fields.js";
import { OrgParamsSchema } from "../../contracts/recruiting/org.js";
import { auditActorOf } from "../../shared/auth/audit-actor.js";
import { callerOrg } from "../../shared/auth/caller-org.js";
import type { Db, Tx } from "../../shared/db/database.js";
import type { AuditLog } from "../../shared/ports/audit-log.js";
import { readPolicy, writePolicy } from "./retention.repository.js";

export type RetentionRoutesContext = {
  db: Db;
  /** Records the policy's changes (`data_retention.updated`) in the change's transaction, when wired. */
  audit?: AuditLog<Tx>;
};

const PATH = "/org/:org_id/data-retention";
const common = { tags: ["data retention"], security: [{ bearer: [] }] };

/** GET/PUT /org/{org_id}/data-retention: the organisation's retention policy (docs/privacy.md, "Retention"). */
export const retentionRoutes: FastifyPluginAsyncTypebox<{ ctx: RetentionRoutesContext }> = async (app, { ctx }) => {
  app.get(
    PATH,
    {
      schema: {
        ...common,
        summary: "Get the data retention policy",
        description:
          "How long the organization's candidates are kept (days after their last change, after rejection, after hire; null: kept) and when the data of a deleted integration or of an application deleted upstream is erased. An organization that never set a policy gets the defaults (`updated_at` null).",
        params: OrgParamsSchema,
        response: responses(DataRetentionResponseSchema, 401, 403),
      },
    },
    async (request) => readPolicy(ctx.db, callerOrg(request)),
  );
  app.put(
    PATH,
    {
      schema: {
        ...common,
        summary: "Set the data retention policy",
        description:
          "Changes the fields sent; the others keep their value. The retention job (hourly by default, RETENTION_CRON) erases the candidates that become due through the same path as `DELETE …/candidates/{candidate_id}/` (a tombstone of ids, a `candidate.erased` event and audit entry; their application is not synced again); a candidate's copy in the ATS is not touched. Answers the policy as stored.",
        params: OrgParamsSchema,
        body: DataRetentionUpdateSchema,
        response: responses(DataRetentionResponseSchema, 401, 403, 422),
      },
    },
    async (request) => {
      const orgId = callerOrg(request);
      const write = async (q: Db | Tx) => {
        const { updated_at: _, ...current } = await readPolicy(q, orgId);
        const next: DataRetention = { ...current, ...request.body };
        const stored = await writePolicy(q, orgId, next);
        return { stored, next };
      };
      const audit = ctx.audit;
      if (!audit) return (await write(ctx.db)).stored;
      return ctx.db.transaction(async (tx) => {
        const { stored, next } = await write(tx);
        await audit.record(tx, {
          orgId,
          actor: auditActorOf(request),
          action: "data_retention.updated",
          resourceType: "data_retention",
          resourceIds: [orgId],
          details: { ...next },
        });
        return stored;
      });
    },
  );
};
