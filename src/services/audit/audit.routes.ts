import type { FastifyPluginAsync } from "fastify";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import {
  AuditLogPageSchema,
  AuditLogQuerySchema,
  AuditVerifySchema,
  type AuditEntryView,
  type AuditLogQuery,
} from "../../contracts/recruiting/audit-log.js";
import { responses } from "../../contracts/recruiting/fields.js";
import { OrgParamsSchema } from "../../contracts/recruiting/org.js";
import { callerOrg } from "../../shared/auth/caller-org.js";
import type { Db } from "../../shared/db/database.js";
import { validationError } from "../../shared/errors.js";
import { listEntries, type AuditFilter } from "./audit.repository.js";
import type { AuditRow } from "./audit.tables.js";
import { verifyChain } from "./verify.js";

const common = { tags: ["audit log"], security: [{ bearer: [] }] };
const PATH = "/org/:org_id/audit-log";
const NDJSON = "application/x-ndjson";

/** The API's view of an entry (ids, the actor and numbers only). */
export const toAuditEntry = (r: AuditRow): AuditEntryView => ({
  id: r.id,
  seq: r.seq,
  occurred_at: r.occurredAt.toISOString(),
  actor: { sub: r.actorSub, client_id: r.actorClient },
  action: r.action,
  resource_type: r.resourceType,
  resource_ids: r.resourceIds,
  request_id: r.requestId,
  source_address: r.sourceAddress,
  score_before: r.scoreBefore,
  score_after: r.scoreAfter,
  details: r.details,
  prev_hash: r.prevHash,
  hash: r.hash,
});

const encodeCursor = (seq: number) => Buffer.from(`s${seq}`).toString("base64url");
const decodeCursor = (text: string): number => {
  const m = /^s(\d{1,18})$/.exec(Buffer.from(text, "base64url").toString("utf8"));
  if (!m) throw validationError([{ loc: ["query", "cursor"], msg: "Invalid cursor", type: "value_error" }]);
  return Number(m[1]);
};

const filterOf = (q: AuditLogQuery): AuditFilter => ({
  actor: q.actor,
  action: q.action,
  resourceType: q.resource_type,
  resourceId: q.resource_id,
  since: q.since === undefined ? undefined : new Date(q.since),
  until: q.until === undefined ? undefined : new Date(q.until),
});

/**
 * The audit log on the recruiting API (behind its tenant guard): read and verified, never changed.
 * `db` is the request path's database.
 */
export const auditRoutes =
  (db: Db): FastifyPluginAsync =>
  async (scope) => {
    const app = scope as unknown as Parameters<FastifyPluginAsyncTypebox>[0];
    app.get(
      PATH,
      {
        schema: {
          ...common,
          summary: "List the organization's audit log",
          description:
            "Every change made through the APIs, console and CLI, newest first, in keyset pages (`limit`, `cursor`), filtered by `actor` (a token `sub` or client id), `action`, `resource_type`, `resource_id`, `since` and `until`. Entries hold ids, the actor and numbers only. `format=jsonl` or `Accept: application/x-ndjson` answers the page as JSON lines (the next page's cursor in the `x-next-cursor` header). No API changes or deletes an entry.",
          params: OrgParamsSchema,
          querystring: AuditLogQuerySchema,
          response: responses(AuditLogPageSchema, 401, 403, 422),
        },
      },
      async (request, reply) => {
        const q = request.query;
        const limit = q.limit ?? 100;
        const before = q.cursor === undefined ? undefined : decodeCursor(q.cursor);
        const rows = await listEntries(db, callerOrg(request), filterOf(q), limit + 1, before);
        const page = rows.slice(0, limit).map(toAuditEntry);
        const next = rows.length > limit ? encodeCursor(page.at(-1)!.seq) : null;
        if (q.format === "jsonl" || (q.format === undefined && request.headers.accept?.includes(NDJSON))) {
          if (next) reply.header("x-next-cursor", next);
          return reply.type(`${NDJSON}; charset=utf-8`).send(page.map((e) => `${JSON.stringify(e)}\n`).join("") as never);
        }
        return { items: page, next_cursor: next };
      },
    );
    app.get(
      `${PATH}/verify`,
      {
        schema: {
          ...common,
          summary: "Verify the organization's audit log",
          description:
            "Walks the chain from its oldest kept entry: each entry's hash must be sha256(prev_hash || its content), its prev_hash the hash of the entry before, with no entry missing. `broken` names the first entry that does not hold (changed or removed in the database by hand).",
          params: OrgParamsSchema,
          response: responses(AuditVerifySchema, 401, 403, 422),
        },
      },
      async (request) => {
        const r = await verifyChain(db, callerOrg(request));
        return { ok: r.ok, checked: r.checked, first_seq: r.firstSeq, last_seq: r.lastSeq, broken: r.broken };
      },
    );
  };
