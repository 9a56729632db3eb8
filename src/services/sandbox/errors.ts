/**
 * The sandbox answers failures with the upstream's error envelope
 * `{"status":"error","error":{code,title,message,log_url}}` and only the codes of the closed list
 * (contracts/upstream/envelopes.ts): the SDK turns anything else into a ResponseValidationError.
 * The HTTP status per code follows reference/upstream-kombo.md §3; where the reference has none,
 * the choice is documented in docs/sandbox.md.
 */
import type { FastifyError, FastifyInstance, FastifyReply } from "fastify";
import type { UpstreamErrorCode, UpstreamErrorEnvelope } from "../../contracts/upstream/index.js";

export class SandboxError extends Error {
  override name = "SandboxError";
  constructor(
    readonly statusCode: number,
    readonly code: UpstreamErrorCode | null,
    message: string,
    readonly options: { title?: string; headers?: Record<string, string> } = {},
  ) {
    super(message);
  }
}

export const isSandboxError = (e: unknown): e is SandboxError => e instanceof SandboxError;

export const inputInvalid = (message: string) => new SandboxError(400, "PLATFORM.INPUT_INVALID", message, { title: "Invalid input" });
/** A record id that names nothing in this integration. */
export const recordNotFound = (what: string, id: string) =>
  new SandboxError(404, "PLATFORM.INPUT_INVALID", `No ${what} with id ${JSON.stringify(id)} exists in this integration.`, {
    title: "Not found",
  });
export const integrationNotFound = (id: string) =>
  new SandboxError(404, "PLATFORM.INTEGRATION_NOT_FOUND", `No integration with id ${JSON.stringify(id)} exists.`, {
    title: "Integration not found",
  });

export function errorEnvelope(code: UpstreamErrorCode | null, message: string, title: string | null = null): UpstreamErrorEnvelope {
  return { status: "error", error: { code, title, message, log_url: null } };
}

export function sendSandboxError(reply: FastifyReply, err: SandboxError): FastifyReply {
  return reply
    .status(err.statusCode)
    .headers(err.options.headers ?? {})
    .type("application/json; charset=utf-8")
    .send(errorEnvelope(err.code, err.message, err.options.title ?? null));
}

type AjvError = { instancePath: string; message?: string; keyword: string; params: Record<string, unknown> };

function describeValidation(errors: AjvError[], context: string | undefined): string {
  const where = context === "querystring" ? "query" : context === "params" ? "path" : (context ?? "body");
  return errors
    .slice(0, 5)
    .map((e) => {
      const field = [where, ...e.instancePath.split("/").filter(Boolean)];
      if (e.keyword === "required") field.push(String(e.params["missingProperty"]));
      return `${field.join(".")}: ${e.keyword === "required" ? "is required" : (e.message ?? "is invalid")}`;
    })
    .join("; ");
}

/** One handler for the whole sandbox: validation and body-parse failures are INPUT_INVALID (400). */
export function installUpstreamErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (isSandboxError(error)) return sendSandboxError(reply, error);
    if (error.validation) {
      return sendSandboxError(reply, inputInvalid(describeValidation(error.validation as unknown as AjvError[], error.validationContext)));
    }
    const status = typeof error.statusCode === "number" ? error.statusCode : 500;
    if (status >= 400 && status < 500) {
      const code = status === 429 ? "PLATFORM.RATE_LIMIT_EXCEEDED" : "PLATFORM.INPUT_INVALID";
      return sendSandboxError(reply, new SandboxError(status === 404 ? 404 : status, code, error.message));
    }
    request.log.error({ err: error }, "unhandled error");
    return sendSandboxError(reply, new SandboxError(500, "PLATFORM.UNKNOWN_ERROR", "An unexpected error occurred."));
  });
  app.setNotFoundHandler((request, reply) =>
    sendSandboxError(
      reply,
      new SandboxError(404, null, `No route ${request.method} ${request.url.split("?")[0]}.`, { title: "Not found" }),
    ),
  );
}
