import { randomUUID } from "node:crypto";
import { TypeBoxValidatorCompiler, type TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type RawServerDefault } from "fastify";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
import { installErrorHandler } from "./error-handler.js";
import type {} from "@fastify/swagger"; // adds `hide` to route schemas

export type App = FastifyInstance<
  RawServerDefault,
  IncomingMessage,
  ServerResponse,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export type CreateAppOptions = {
  logger: Logger;
  /** Readiness probe for /healthz: throws when a dependency (storage) is not usable. */
  ready?: () => Promise<void>;
  /** Install the resource servers' error handler (422 detail shape). The token service has its own. */
  errorHandler?: boolean;
  bodyLimit?: number;
};

/**
 * The common base of every service's app: TypeBox type provider, Ajv set to reject unknown
 * fields (removeAdditional off) and report every issue, request ids carried from `X-Request-Id`
 * (generated when absent or unsafe) and echoed back, `/healthz`, and the error handler.
 */
export function createApp(opts: CreateAppOptions): App {
  const app = Fastify({
    loggerInstance: opts.logger as FastifyBaseLogger,
    genReqId: (req) => {
      const given = req.headers["x-request-id"];
      return typeof given === "string" && REQUEST_ID.test(given) ? given : randomUUID();
    },
    logController: new LogController({ requestIdLogLabel: "request_id" }),
    bodyLimit: opts.bodyLimit ?? 1024 * 1024,
    routerOptions: { ignoreTrailingSlash: false },
    ajv: {
      customOptions: {
        removeAdditional: false,
        coerceTypes: "array",
        useDefaults: true,
        allErrors: true,
      },
    },
  }).withTypeProvider<TypeBoxTypeProvider>();
  void TypeBoxValidatorCompiler; // the default Ajv compiler handles TypeBox's JSON Schema output

  app.addHook("onRequest", async (request, reply) => {
    reply.header("x-request-id", request.id);
  });
  if (opts.errorHandler !== false) installErrorHandler(app);

  app.get("/healthz", { schema: { hide: true } }, async (_request, reply) => {
    try {
      await opts.ready?.();
      return { status: "ok" };
    } catch (err) {
      app.log.warn({ err }, "health check failed");
      return reply.status(503).send({ status: "unavailable" });
    }
  });
  return app;
}
