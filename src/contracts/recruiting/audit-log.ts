import { type Static, Type } from "@sinclair/typebox";
import { OrNull } from "./fields.js";

/**
 * The audit log's contract (docs/privacy.md, "Audit log"): `GET /org/{org_id}/audit-log` and its
 * `verify`. Entries hold ids, the actor and numbers only.
 */
export const AuditEntrySchema = Type.Object(
  {
    id: Type.String({ description: "The entry's id." }),
    seq: Type.Integer({ description: "Its place in the organization's chain (1, 2, 3…)." }),
    occurred_at: Type.String({ format: "date-time", description: "When the change was recorded." }),
    actor: Type.Object(
      {
        sub: Type.String({ description: "The token's `sub` (a user or service account), or `system:<job>`." }),
        client_id: OrNull(Type.String(), { description: "The OAuth client of the token (`azp`)." }),
      },
      { additionalProperties: false },
    ),
    action: Type.String({ description: "What happened, e.g. `candidate.created`, `interview.graded`, `interview.corrected`." }),
    resource_type: Type.String({ description: "What changed: `position`, `candidate`, `interview`, `webhook_endpoint`…" }),
    resource_ids: Type.Array(Type.String(), { description: "Its id first, then the ids that locate it (e.g. the candidate's position)." }),
    request_id: OrNull(Type.String(), { description: "The request's id (X-Request-Id)." }),
    source_address: OrNull(Type.String(), { description: "The caller's address as the API saw it." }),
    score_before: OrNull(Type.Number(), { description: "Gradings and corrections: the score before." }),
    score_after: OrNull(Type.Number(), { description: "Gradings and corrections: the score after." }),
    details: Type.Record(Type.String(), Type.Union([Type.Number(), Type.Boolean(), Type.Null()]), {
      description: "Further facts (numbers only).",
    }),
    prev_hash: Type.String({ description: "The hash of the entry before it ('' for the first)." }),
    hash: Type.String({ description: "sha256(prev_hash || canonical entry), hex." }),
  },
  { additionalProperties: false, title: "AuditEntry" },
);
export type AuditEntryView = Static<typeof AuditEntrySchema>;

export const AuditLogQuerySchema = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: "Page size (default 100)." })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 40, description: "`next_cursor` of the previous page (opaque)." })),
    actor: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: "Only this actor: a token `sub` or a client id." })),
    action: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "Only this action, e.g. `interview.corrected`." })),
    resource_type: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "Only this resource type." })),
    resource_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: "Only entries naming this id." })),
    since: Type.Optional(Type.String({ format: "date-time", description: "Only entries recorded at or after this time." })),
    until: Type.Optional(Type.String({ format: "date-time", description: "Only entries recorded at or before this time." })),
    format: Type.Optional(
      Type.Union([Type.Literal("json"), Type.Literal("jsonl")], {
        description: "`jsonl`: the page as JSON lines (one entry per line; also `Accept: application/x-ndjson`).",
      }),
    ),
  },
  { description: "Unknown query parameters are ignored." },
);
export type AuditLogQuery = Static<typeof AuditLogQuerySchema>;

/** Newest first; `next_cursor` is null on the last page. */
export const AuditLogPageSchema = Type.Object(
  {
    items: Type.Array(AuditEntrySchema),
    next_cursor: OrNull(Type.String(), { description: "Cursor of the next (older) page; null on the last one." }),
  },
  { additionalProperties: false, title: "AuditLogPage" },
);
export type AuditLogPage = Static<typeof AuditLogPageSchema>;

export const AuditVerifySchema = Type.Object(
  {
    ok: Type.Boolean({ description: "Whether every kept entry holds." }),
    checked: Type.Integer({ description: "Entries checked." }),
    first_seq: OrNull(Type.Integer(), { description: "The oldest kept entry (older ones were purged by the retention)." }),
    last_seq: OrNull(Type.Integer(), { description: "The newest entry." }),
    broken: OrNull(
      Type.Object(
        {
          seq: Type.Integer({ description: "The first entry that does not hold." }),
          id: OrNull(Type.String(), { description: "Its id (null when it is missing)." }),
          reason: Type.String({ description: "What does not hold." }),
        },
        { additionalProperties: false },
      ),
      { description: "The first entry that does not hold; null when all do." },
    ),
  },
  { additionalProperties: false, title: "AuditVerify" },
);
export type AuditVerify = Static<typeof AuditVerifySchema>;
