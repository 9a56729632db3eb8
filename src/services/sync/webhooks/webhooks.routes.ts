import {
  WEBHOOK_KINDS,
  WebhookQuerySchema,
  WebhookResponseSchema,
  type WebhookKind,
  type WebhookResponse,
} from "../../../contracts/proxy/webhooks.js";
import { ErrorDetailSchema, HTTPValidationErrorSchema } from "../../../contracts/common.js";
import { WEBHOOK_ENVELOPE_BOUNDS, webhookEventJsonSchema } from "../../../contracts/proxy/webhook-bounds.js";
import { AppError, notFound, validationError } from "../../../shared/errors.js";
import { AddressBucket } from "../../../shared/http/address-bucket.js";
import { unstorableIssues } from "../../../shared/http/storable-input.js";
import type { SyncDeps, SyncRoutes } from "../sync-routes.deps.js";
import { orgOf, WEBHOOK_HANDLERS } from "./webhook-handlers.js";
import { findWebhookEvent, isProcessed } from "./webhook-events.repository.js";
import { createEventIntake } from "./event-intake.js";
import { boundIssues, eventDataIssues } from "./event-data.js";
import { firstHeader, parseWebhookJson } from "./webhook-json.js";
import { isAuthentic } from "./verify-signature.js";
import type { WebhookEventRow } from "../sync.tables.js";

/**
 * `{id, type, data}` with `type` equal to the receiver's kind, in UTF-8, nested at most
 * MAX_JSON_DEPTH deep, within its kind's bounds (contracts/proxy/webhook-bounds.ts: the fields its
 * work reads, every stored or indexed field's length and format) and with no string (at any depth)
 * that storage cannot hold; anything else is a 422 naming the field, so the upstream does not retry
 * for ever an event that can never be stored or processed. Decided per event, before it joins a
 * group commit, so it never fails the commit of the others.
 */
function parseEvent(raw: Buffer, kind: WebhookKind): { id: string; data: Record<string, unknown>; body: object } {
  const body = parseWebhookJson(raw);
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw validationError([{ loc: ["body"], msg: "Input should be a valid dictionary or object", type: "model_type" }]);
  }
  const { id, type, data } = body as Record<string, unknown>;
  const issues = boundIssues(WEBHOOK_ENVELOPE_BOUNDS, body as Record<string, unknown>, ["body"]);
  if (type !== kind) {
    issues.push({ loc: ["body", "type"], msg: `Input should be '${kind}'`, type: type === undefined ? "missing" : "literal_error" });
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    issues.push({
      loc: ["body", "data"],
      msg: data === undefined ? "Field required" : "Input should be a valid dictionary or object",
      type: data === undefined ? "missing" : "model_type",
    });
  } else issues.push(...eventDataIssues(kind, data as Record<string, unknown>));
  issues.push(...unstorableIssues(body, ["body"]));
  if (issues.length) throw validationError(issues);
  return { id: id as string, data: data as Record<string, unknown>, body };
}

/** A receiver's route options: its documentation, and its body taken raw (checked after the signature). */
function receiverOptions(kind: WebhookKind) {
  return {
    schema: {
      tags: ["Webhooks"],
      summary: `Receive the upstream's ${kind} event`,
      description:
        "Authentic when `X-Upstream-Signature` (or `X-Kombo-Signature`) is the base64url HMAC-SHA256 of the raw body with the webhook secret, or when `webhook_secret` equals it. The event is stored (deduplicated on its `id`) before the answer; its work runs from the job queue.",
      querystring: WebhookQuerySchema,
      headers: {
        type: "object",
        properties: { "x-upstream-signature": { type: ["string", "null"] }, "x-kombo-signature": { type: ["string", "null"] } },
      },
      body: webhookEventJsonSchema(kind),
      response: {
        200: WebhookResponseSchema,
        401: ErrorDetailSchema,
        404: ErrorDetailSchema,
        422: HTTPValidationErrorSchema,
        429: ErrorDetailSchema,
      },
    },
    // Authenticity comes first: no rate limit and no shared input check before it (parseEvent checks the event after).
    config: { rateLimit: false, checksOwnInput: true },
    // The body schema documents the event; validation happens on the raw bytes after the signature check.
    validatorCompiler: ({ httpPart }: { httpPart?: string }) => (httpPart === "body" ? () => true : undefined) as never,
  };
}

/** The answer to a repeated delivery: the stored event's status. */
function duplicate(row: WebhookEventRow): WebhookResponse {
  return {
    received: true,
    processed: isProcessed(row),
    message: `duplicate delivery of event ${row.id}: ${row.status}${row.message ? ` (${row.message})` : ""}`,
  };
}

/** Whether the upstream knows the integration; when it cannot say (it is failing), the event is kept. */
async function knownUpstream(deps: SyncDeps, integrationId: string, requestId: string): Promise<boolean> {
  try {
    const res = await deps.integrations.details(integrationId, requestId, { bypass: true });
    return res.status !== 404;
  } catch {
    return true;
  }
}

/**
 * The six receivers, registered from one list. An event is checked (signature or query secret,
 * else 401 and nothing stored), parsed (422), matched to an integration Hirebridge or the upstream
 * knows (404), then stored and queued before the 200, in a transaction shared with the events
 * arriving at the same time (event-intake.ts): a repeated delivery finds the stored event and
 * queues nothing.
 */
export const webhookRoutes: SyncRoutes = async (app, { deps }) => {
  const sync = deps.sync;
  // The signature covers the exact bytes received: keep them, parse later.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer" }, (_req, body, done) => done(null, body));
  const intake = createEventIntake({ database: deps.database, queue: sync.queue, logger: deps.logger });
  // The receivers are outside the per-caller rate limit: an authentic event is never refused for
  // rate. Deliveries that fail the signature check count per address in a bucket of their own,
  // so junk can never use up the upstream's allowance (docs/operations.md).
  const unauthentic = new AddressBucket(deps.config.RATE_LIMIT_PER_MINUTE);

  for (const kind of WEBHOOK_KINDS) {
    app.post(`/webhooks/upstream/${kind}`, receiverOptions(kind), async (request): Promise<WebhookResponse> => {
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const { webhook_secret } = request.query;
      const signature = firstHeader(request, "x-upstream-signature") ?? firstHeader(request, "x-kombo-signature");
      if (!isAuthentic(raw, { signature, querySecret: webhook_secret ?? undefined }, deps.config.UPSTREAM_WEBHOOK_SECRET)) {
        const wait = unauthentic.hit(request.ip);
        if (wait)
          throw new AppError("RATE_LIMITED", `Too many unauthentic webhook deliveries; retry in ${wait} s`, {
            headers: { "retry-after": String(wait) },
          });
        throw new AppError("UNAUTHORIZED", "Invalid or missing webhook signature");
      }
      const event = parseEvent(raw, kind);
      const integrationId = WEBHOOK_HANDLERS[kind].integrationOf(event.data);
      let orgId = orgOf(event.data as never);
      if (integrationId) {
        const owner = await deps.integrations.ownerOf(integrationId);
        if (owner) orgId = owner;
        else {
          // Unknown here: a repeated delivery still answers from the store, otherwise ask the upstream.
          const seen = await findWebhookEvent(deps.database.db, event.id);
          if (seen) return duplicate(seen);
          if (!(await knownUpstream(deps, integrationId, request.id))) throw notFound("Not found");
        }
      }
      const outcome = await intake.submit({ id: event.id, type: kind, integrationId, orgId, payload: event.body });
      if (!outcome.stored)
        return outcome.row ? duplicate(outcome.row) : { received: true, processed: false, message: "duplicate delivery" };
      request.log.info({ event_id: event.id, event_type: kind, integration_id: integrationId }, "webhook event stored");
      return { received: true, processed: false, message: "stored; work queued" };
    });
  }
};
