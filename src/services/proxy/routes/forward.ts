import type { FastifyReply, FastifyRequest } from "fastify";
import { principalOf } from "../../../shared/auth/bearer.plugin.js";
import { forbidden, validationError } from "../../../shared/errors.js";
import type { CachedResponse } from "../cache/response-cache.js";
import type { ProxyOperation } from "../operations/operation.js";
import { fastifyPath } from "../operations/operation.js";
import { routeSchema } from "../operations/describe.js";
import { toUpstreamRequest } from "../operations/upstream-request.js";
import type { ProxyDeps } from "../proxy-deps.js";
import { AnswerCutShort, type UpstreamResponse } from "../upstream/upstream-client.js";
import type { App } from "../../../shared/http/create-app.js";

const ORG_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The caller's organisation; integrations belong to one, so a token without it can reach none. */
export function callerOrg(request: FastifyRequest): string {
  const orgId = principalOf(request).orgId;
  if (!orgId || !ORG_ID.test(orgId)) throw forbidden("The access token carries no organisation (org_id claim)");
  return orgId.toLowerCase();
}

type Input = { params?: Record<string, unknown>; query?: Record<string, unknown>; body?: unknown };
const inputOf = (request: FastifyRequest): Input => request as unknown as Input;

/** Checks that the integration the operation names belongs to the caller's org (404 otherwise). */
export async function authorize(deps: ProxyDeps, op: ProxyOperation, request: FastifyRequest): Promise<void> {
  if (op.tenancy === "none") return;
  const { params, query } = inputOf(request);
  const integrationId = String((op.tenancy === "query" ? query : params)?.integration_id ?? "");
  await deps.integrations.requireOwned(integrationId, callerOrg(request), request.id, request.log);
}

const INTEGRATION_GONE = /"code"\s*:\s*"PLATFORM\.INTEGRATION_NOT_FOUND"/;

/**
 * An integration the caller owns here that the upstream no longer knows (deleted there, or a
 * sandbox that lost its state) answers in Hirebridge's own shape, not the upstream's envelope,
 * and says so in the log: the two sides disagree and someone should know.
 */
function integrationGone(request: FastifyRequest, status: number, body: string): boolean {
  if (status !== 404 || !INTEGRATION_GONE.test(body)) return false;
  request.log.warn("the upstream does not know an integration recorded here (deleted upstream?)");
  return true;
}

const gone = (reply: FastifyReply) => reply.status(404).send({ detail: "Integration not found upstream" });

/** Passes an upstream answer on: its status, its allowed headers, and its body as a stream. */
export async function sendUpstream(request: FastifyRequest, reply: FastifyReply, res: UpstreamResponse): Promise<FastifyReply> {
  if (res.status === 404) {
    const body = await res.body.text();
    return integrationGone(request, res.status, body) ? gone(reply) : reply.status(res.status).headers(res.headers).send(body);
  }
  return reply.status(res.status).headers(res.headers).send(res.body);
}

export function sendCached(request: FastifyRequest, reply: FastifyReply, res: CachedResponse): FastifyReply {
  if (integrationGone(request, res.status, res.body)) return gone(reply);
  return reply.status(res.status).headers(res.headers).header("x-cache", res.cache).send(res.body);
}

/**
 * The whole of a plain proxied operation: tenancy, the upstream request from the mapping table, the
 * answer streamed back. `body` replaces the shaped request body; `onSuccess` runs after a 2xx
 * (before the body is streamed) for operations with local side effects.
 */
export async function forward(
  deps: ProxyDeps,
  op: ProxyOperation,
  request: FastifyRequest,
  reply: FastifyReply,
  opts: { body?: unknown; onSuccess?: () => Promise<void> } = {},
): Promise<FastifyReply> {
  await authorize(deps, op, request);
  const { params, query, body } = inputOf(request);
  const upstreamRequest = toUpstreamRequest(op, { params, query, body, requestId: request.id }, opts.body);
  if (!opts.onSuccess) {
    try {
      const res = await deps.upstream.forward(upstreamRequest, (status, headers) => deliverRaw(reply, status, headers), request.log);
      return res ? await sendUpstream(request, reply, res) : reply;
    } catch (err) {
      if (!(err instanceof AnswerCutShort)) throw err;
      request.log.warn({ err: err.cause, operation: op.operationId }, "answer cut short: the upstream or the caller's connection failed mid-body");
      return reply;
    }
  }
  const res = await deps.upstream.send(upstreamRequest, request.log);
  if (res.status >= 200 && res.status < 300) {
    try {
      await opts.onSuccess();
    } catch (err) {
      res.body.destroy();
      throw err;
    }
  }
  return sendUpstream(request, reply, res);
}

/**
 * Takes the response over from Fastify to write a 2xx upstream answer straight into the socket:
 * the status and headers at once (the ones hooks already set on the reply, such as X-Request-Id,
 * security and CORS headers, then the upstream's), the body as it arrives. This is the proxy's hot
 * path; skipping the intermediate stream was the largest part of cutting its CPU per request by a
 * third (bench/proxy.md).
 * Response hooks (metrics, the access log) still run when the response finishes.
 */
function deliverRaw(reply: FastifyReply, status: number, headers: Record<string, string>) {
  reply.hijack();
  return reply.raw.writeHead(status, Object.assign(reply.getHeaders() as Record<string, string>, headers)); // getHeaders() is a fresh copy
}

const MISSING_BODY = [{ loc: ["body"], msg: "Field required", type: "missing" }];

/** Registers an operation's route with its schema; a required body that is absent reads "Field required". */
export function route(
  app: App,
  op: ProxyOperation,
  handler: (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>,
): void {
  const bodyRequired = op.schema.body !== undefined && !("anyOf" in op.schema.body);
  app.route({
    method: op.method,
    url: fastifyPath(op.path),
    schema: routeSchema(op),
    ...(bodyRequired
      ? {
          preValidation: async (request: FastifyRequest) => {
            if (request.body === undefined || request.body === null) throw validationError(MISSING_BODY);
          },
        }
      : {}),
    handler,
  });
}
