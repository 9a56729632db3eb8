import { createHash } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import { principalOf } from "../../../shared/auth/bearer.plugin.js";
import type { Db, Tx } from "../../../shared/db/database.js";
import { AppError, validationError } from "../../../shared/errors.js";
import { sendJsonText } from "../http/raw-json.js";
import { lockKey, storeAnswer, storedAnswer, type KeyScope } from "./idempotency.repository.js";

/** What a create hands back from inside its transaction: its answer, and what to do once it committed. */
export type CreateAnswer<T> = { body: T; committed?: () => void };

/** The JSON of `value` with every object's keys sorted: two bodies that differ only in key order are the same request. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

const fingerprintOf = (request: FastifyRequest) =>
  createHash("sha256")
    .update(`${request.method} ${request.url.split("?")[0]}\n${canonicalJson(request.body)}`)
    .digest("base64url");

/**
 * The key as sent: a Structured Field string (`"…"`, as the draft writes it) or the bare value
 * most clients send; both name the same key.
 */
const keyOf = (header: string) => (header.length >= 2 && header.startsWith('"') && header.endsWith('"') ? header.slice(1, -1) : header);

const inFlight = () =>
  new AppError("CONFLICT", "A request with this Idempotency-Key is still being processed; retry it once it has answered", {
    headers: { "retry-after": "1" },
  });

/**
 * A create that honours `Idempotency-Key` (draft-ietf-httpapi-idempotency-key-header), keys scoped
 * to the organisation and the caller (the token's subject):
 * - no key: `create` runs as usual (`plain`);
 * - a new key: `create` runs in a transaction that also stores its answer under the key, so the
 *   record and its key commit together (a crash leaves neither); a refused create (4xx) stores
 *   nothing, and the key stays free;
 * - the key again with the same request (method, path, body): the first answer again, same status
 *   and body, nothing created;
 * - the key again with another request: 422 naming the header;
 * - the key while its first request is still running: 409 with `Retry-After: 1` (this process
 *   knows its own requests; another instance's holds the key's advisory lock).
 */
export type IdempotentCreate = ReturnType<typeof idempotentCreate>;

export function idempotentCreate(db: Db, keysInFlight = new Set<string>()) {
  return async <T>(
    request: FastifyRequest,
    reply: FastifyReply,
    orgId: string,
    create: { keyed: (tx: Tx) => Promise<CreateAnswer<T>>; plain: () => Promise<T> },
  ): Promise<T | FastifyReply> => {
    const header = (request.headers as Record<string, string | undefined>)["idempotency-key"];
    if (header === undefined) return create.plain();
    const scope: KeyScope = { orgId, caller: principalOf(request).sub, key: keyOf(header) };
    const local = `${scope.orgId}\n${scope.caller}\n${scope.key}`;
    if (keysInFlight.has(local)) throw inFlight();
    keysInFlight.add(local);
    try {
      const fingerprint = fingerprintOf(request);
      let after: (() => void) | undefined;
      const answer = await db.transaction(async (tx) => {
        if (!(await lockKey(tx, scope))) throw inFlight();
        const first = await storedAnswer(tx, scope);
        if (first && first.fingerprint !== fingerprint) throw reusedKey();
        if (first) return first;
        const created = await create.keyed(tx);
        after = created.committed;
        const stored = { fingerprint, status: 200, response: JSON.stringify(created.body) };
        await storeAnswer(tx, scope, stored);
        return stored;
      });
      after?.();
      return sendJsonText(reply.code(answer.status), answer.response);
    } finally {
      keysInFlight.delete(local);
    }
  };
}

const reusedKey = () =>
  validationError([
    {
      loc: ["header", "idempotency-key"],
      msg: "This Idempotency-Key was used for a different request (another body or path); use a new key for a new request",
      type: "value_error",
    },
  ]);
