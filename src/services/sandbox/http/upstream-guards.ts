/**
 * What stands in front of every /v1 operation, in the upstream's order: the API key (401), the
 * rate limit (429), injected faults, then — after validation — the integration named by
 * X-Integration-Id and its state, the per-integration concurrency limit on actions (429 with the
 * Concurrency-* headers), and the configured latency.
 */
import { timingSafeEqual } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { SandboxContext } from "../context.js";
import { SandboxError, integrationNotFound, inputInvalid } from "../errors.js";
import type { Integration } from "../store/sandbox-store.js";

declare module "fastify" {
  interface FastifyContextConfig {
    /** xi: the operation needs X-Integration-Id; action: a live write/read, concurrency-limited. */
    upstream?: { xi?: boolean; action?: boolean };
  }
  interface FastifyRequest {
    integration?: Integration;
  }
}

/** The integration resolved from X-Integration-Id (set for every `xi` route before its handler). */
export function integrationOf(request: FastifyRequest): Integration {
  if (!request.integration) throw new Error("route is not declared with upstream.xi");
  return request.integration;
}

export function installUpstreamGuards(app: FastifyInstance, ctx: SandboxContext): void {
  const expected = Buffer.from(`Bearer ${ctx.deps.apiKey}`);

  app.addHook("onRequest", async (request, reply) => {
    const given = Buffer.from(request.headers.authorization ?? "");
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw new SandboxError(401, "PLATFORM.AUTHENTICATION_INVALID", "The API key is missing or invalid.", { title: "Unauthorized" });
    }
    const path = request.url.slice("/v1".length).split("?")[0] ?? "";
    const limited = ctx.settings.rate_limit_path_prefix === null || path.startsWith(ctx.settings.rate_limit_path_prefix);
    const wait = limited ? ctx.limiter.take(ctx.settings.rate_limit_per_second) : null;
    if (wait !== null) {
      throw new SandboxError(429, "PLATFORM.RATE_LIMIT_EXCEEDED", "Too many requests; retry after the time in Retry-After.", {
        title: "Rate limit exceeded",
        headers: { "retry-after": String(wait) },
      });
    }
    const fault = ctx.faults.pick(path);
    if (fault) {
      await ctx.faults.inject(fault, request, reply, path.startsWith("/ats/"));
      return reply;
    }
  });

  app.addHook("preHandler", async (request, reply) => {
    const cfg = request.routeOptions.config.upstream;
    if (cfg?.xi) {
      const integration = resolveIntegration(ctx, request);
      request.integration = integration;
      if (cfg.action) acquireSlot(ctx, integration, reply);
    }
    if (ctx.settings.latency_ms > 0) await sleep(ctx.settings.latency_ms);
  });
}

function resolveIntegration(ctx: SandboxContext, request: FastifyRequest): Integration {
  const raw = request.headers["x-integration-id"];
  const id = Array.isArray(raw) ? raw[0] : raw;
  if (!id) throw inputInvalid("The X-Integration-Id header is required for this endpoint.");
  const integration = ctx.store.get(id);
  if (!integration) throw integrationNotFound(id);
  const isAts = request.url.startsWith("/v1/ats/");
  if (isAts && integration.category !== "ATS") {
    throw new SandboxError(
      403,
      "INTEGRATION.MODEL_NOT_AVAILABLE",
      `Integration ${id} is a ${integration.category} integration; ATS models are not available.`,
    );
  }
  // The general endpoints (force-sync) only know PLATFORM.* codes; the integration's own state
  // errors are ATS codes, so they apply to /ats/* only.
  if (isAts) {
    if (integration.status === "INACTIVE")
      throw new SandboxError(403, "INTEGRATION.INACTIVE", "The integration is inactive.", { title: "Integration inactive" });
    if (integration.status === "INVALID") {
      throw new SandboxError(403, "INTEGRATION.AUTHENTICATION_INVALID", "The integration's credentials are invalid; relink it.", {
        title: "Integration credentials invalid",
      });
    }
    if (integration.setupStatus === "INCOMPLETE")
      throw new SandboxError(409, "INTEGRATION.SETUP_INCOMPLETE", "The integration's setup is incomplete.");
    if (integration.setupStatus === "FINAL_SYNC_PENDING")
      throw new SandboxError(409, "INTEGRATION.SETUP_SYNC_PENDING", "The integration's first sync is still running.");
    if (integration.qaStatus === "FAILED")
      throw new SandboxError(409, "INTEGRATION.QA_FAILED", "The integration failed its quality check.");
  }
  return integration;
}

function acquireSlot(ctx: SandboxContext, integration: Integration, reply: FastifyReply): void {
  const limit = ctx.settings.concurrency_limit;
  const release = ctx.concurrency.acquire(integration.id, limit);
  if (!release) {
    throw new SandboxError(429, "PLATFORM.CONCURRENCY_LIMIT_EXCEEDED", `At most ${limit} concurrent actions per integration.`, {
      title: "Concurrency limit exceeded",
      headers: { "concurrency-limit": String(limit), "concurrency-remaining": "0", "retry-after": "1" },
    });
  }
  // Released when the response is done or the client went away, whichever comes first.
  reply.raw.once("close", release);
  if (limit > 0) {
    reply.header("concurrency-limit", String(limit));
    reply.header("concurrency-remaining", String(Math.max(0, limit - ctx.concurrency.inFlight(integration.id))));
  }
}
