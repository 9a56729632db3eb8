import type { FastifyReply, FastifyRequest } from "fastify";
import { validationError } from "../../../shared/errors.js";
import { ownedIntegrationOf } from "../../../shared/http/owned-integration.js";
import type { CachedResponse } from "../cache/response-cache.js";
import {
  fastifyPath,
  type AnyOperationRequest,
  type OperationInput,
  type OperationRequest,
  type OperationSchema,
  type ProxyOperation,
} from "../operations/operation.js";
import { routeSchema } from "../operations/describe.js";
import { toUpstreamRequest } from "../operations/upstream-request.js";
import type { ProxyDeps } from "../proxy-deps.js";
import { AnswerCutShort, type UpstreamResponse } from "../../../shared/upstream/upstream-client.js";
import type { App } from "../../../shared/http/create-app.js";

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
 * The whole of a plain proxied operation (its integration already checked by the route's ownership
 * guard, see `route`): the upstream request from the mapping table, the answer streamed back. `body` replaces the shaped request body; `onSuccess` runs after a 2xx
 * (before the body is streamed) for operations with local side effects.
 */
export async function forward(
  deps: ProxyDeps,
  op: ProxyOperation,
  request: AnyOperationRequest,
  reply: FastifyReply,
  opts: { body?: unknown; onSuccess?: () => Promise<void> } = {},
): Promise<FastifyReply> {
  // Fails loudly if the route was registered without the guard (an operation naming an integration).
  if (op.tenancy !== "none") ownedIntegrationOf(request);
  const { params, query, body } = request;
  const upstreamRequest = toUpstreamRequest(op, { params, query, body, requestId: request.id }, opts.body);
  if (!opts.onSuccess) {
    try {
      const res = await deps.upstream.forward(upstreamRequest, (status, headers) => deliverRaw(reply, status, headers), request.log);
      return res ? await sendUpstream(request, reply, res) : reply;
    } catch (err) {
      if (!(err instanceof AnswerCutShort)) throw err;
      request.log.warn(
        { err: err.cause, operation: op.operationId },
        "answer cut short: the upstream or the caller's connection failed mid-body",
      );
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

async function requireBody(request: FastifyRequest): Promise<void> {
  if (request.body === undefined || request.body === null) throw validationError(MISSING_BODY);
}

/**
 * The integration of an operation that also takes it in `X-Integration-Id` (the upstream's own SDKs
 * send it there): copied into the query, where validation, tenancy and the upstream request read it.
 */
async function integrationFromHeader(request: FastifyRequest): Promise<void> {
  const header = request.headers["x-integration-id"];
  if (typeof header !== "string" || header === "") return;
  const query = request.query as Record<string, unknown>;
  const given = query["integration_id"];
  if (given === undefined || given === "") query["integration_id"] = header;
  else if (given !== header) {
    throw validationError([
      {
        loc: ["header", "x-integration-id"],
        msg: "X-Integration-Id names another integration than the query's integration_id",
        type: "value_error",
      },
    ]);
  }
}

/**
 * Registers an operation's route with its schema; the handler's request is typed from the
 * operation's contract. A required body that is absent reads "Field required". An operation that
 * names an integration declares it to the owned-integration guard (shared/http/owned-integration.ts):
 * the integration is checked as the caller's organisation's (adopted when the upstream says it was
 * made for it) before the handler runs.
 */
export function route<S extends OperationSchema>(
  app: App,
  op: ProxyOperation<S>,
  handler: (request: OperationRequest<S>, reply: FastifyReply) => Promise<FastifyReply>,
  /** A check of the input beyond its schema: runs before the ownership guard, so bad input never reaches the upstream. */
  inputCheck?: (request: OperationRequest<S>) => void,
): void {
  const bodyRequired = op.schema.body !== undefined && !("anyOf" in op.schema.body);
  const preValidation = [...(op.integrationFromHeader ? [integrationFromHeader] : []), ...(bodyRequired ? [requireBody] : [])];
  app.route<OperationInput<S>>({
    method: op.method,
    url: fastifyPath(op.path),
    schema: routeSchema(op),
    ...(preValidation.length > 0 ? { preValidation } : {}),
    ...(inputCheck ? { preHandler: async (request: OperationRequest<S>) => inputCheck(request) } : {}),
    ...(op.tenancy === "none"
      ? {}
      : { config: { ownedIntegration: { from: op.tenancy === "path" ? "params" : "query", decide: "upstream" } } }),
    handler,
  });
}
