import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { TypeBoxValidatorCompiler, type TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type RawServerDefault, type RouteOptions } from "fastify";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
import { installErrorHandler } from "./error-handler.js";
import { installAccessLog } from "./logger.js";
import { requestLoggerFactory } from "./request-logger.js";
import { installMetrics } from "./metrics.js";
import { installProbes, type ReadinessCheck } from "./probes.js";
import { appendRouteHook } from "./route-hooks.js";
import { nestedDeeperThan } from "./json-depth.js";
import { finiteNumbersIn } from "./numeric-query.js";
import { markChecksOwnInput, refuseUnstorable, tooDeep, utf8Text } from "./storable-input.js";
import type {} from "@fastify/swagger"; // adds `hide` to route schemas

export type App = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger, TypeBoxTypeProvider>;

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Most bytes of a declared body above the limit read and discarded rather than reset (see the onError hook). */
const DISCARD_MAX_BYTES = 16 * 1024 * 1024;

export type CreateAppOptions = {
  /** Label of the service's metrics (token, api, proxy, sandbox). */
  service: string;
  logger: Logger;
  /** What /readyz asks about (storage, queue, cache); /healthz asks nothing (probes.ts). */
  readiness?: ReadinessCheck[];
  /** Install the resource servers' error handler (422 detail shape). The token service has its own. */
  errorHandler?: boolean;
  bodyLimit?: number;
  /** Time a client has to send a whole request (slow-client protection). */
  requestTimeoutMs?: number;
  /** Hops of trusted load balancers (X-Forwarded-For), so the client's address is the real one. */
  trustProxy?: number;
  /**
   * Refuse input storage cannot hold (storable-input.ts): JSON bodies that are not UTF-8, and NUL or
   * unpaired surrogates in the path, query or body. On for the services that store what they get.
   */
  storableInput?: boolean;
};

/**
 * Every service's JSON body parser: a body nested deeper than MAX_JSON_DEPTH is refused before it
 * is parsed, as a validation failure of the body (each service's error handler answers it in its
 * own shape: 422 on the APIs). With `storable`, the body is read as bytes so bytes that are not
 * UTF-8 are refused instead of decoded into U+FFFD.
 */
function installJsonParser(app: App, storable: boolean): void {
  const parseJson = app.getDefaultJsonParser("error", "error");
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: storable ? "buffer" : "string" }, (request, body, done) => {
    let text: string;
    try {
      text = typeof body === "string" ? body : utf8Text(body as Buffer);
      if (nestedDeeperThan(text)) throw tooDeep();
    } catch (err) {
      return done(err as Error, undefined);
    }
    parseJson(request, text, done);
  });
}

/**
 * The common base of every service's app: TypeBox type provider, Ajv set to reject unknown
 * fields (removeAdditional off) and report every issue, request ids carried from `X-Request-Id`
 * (generated when absent or unsafe) and echoed back, `/healthz` (liveness) and `/readyz` (readiness), `/metrics`, server
 * timeouts against slow clients, and the error handler.
 */
export function createApp(opts: CreateAppOptions): App {
  const app = Fastify({
    loggerInstance: opts.logger as FastifyBaseLogger,
    genReqId: (req) => {
      const given = req.headers["x-request-id"];
      return typeof given === "string" && REQUEST_ID.test(given) ? given : randomUUID();
    },
    // One access line per request instead of Fastify's two (installAccessLog): method, route, status, duration.
    logController: new LogController({ requestIdLogLabel: "request_id", disableRequestLogging: true }),
    // request.log binds the request id without a pino child per request (request-logger.ts).
    childLoggerFactory: requestLoggerFactory,
    bodyLimit: opts.bodyLimit ?? 1024 * 1024,
    // Trust the nearest `trustProxy` hops of X-Forwarded-For (the load balancers), no further.
    trustProxy: (_address: string, hop: number) => hop < (opts.trustProxy ?? 0),
    // A client that trickles its request is cut off (408) once REQUEST_TIMEOUT_MS has passed; Node
    // checks every second rather than its default 30 s. Idle keep-alive connections close after 72 s.
    serverFactory: (handler) => {
      const server = createServer({ connectionsCheckingInterval: 1000 }, handler);
      server.requestTimeout = opts.requestTimeoutMs ?? 30_000;
      server.headersTimeout = Math.min(server.requestTimeout, 60_000);
      server.keepAliveTimeout = 72_000;
      return server;
    },
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

  app.addHook("onRequest", (request, reply, done) => {
    reply.header("x-request-id", request.id);
    done();
  });
  // Fastify answers a body above the limit with `Connection: close` and closes the socket with the
  // rest of the body still arriving: the kernel then resets the connection, and a proxy still
  // sending that body (nginx) may see the reset before our 413 and answer 502 instead. A declared
  // body of up to DISCARD_MAX_BYTES keeps the connection: once the 413 is sent Node reads the rest
  // and throws it away (bounded in time by the request timeout), so the 413 arrives whole.
  app.addHook("onError", (request, reply, error, done) => {
    if (error.code === "FST_ERR_CTP_BODY_TOO_LARGE" && Number(request.headers["content-length"]) <= DISCARD_MAX_BYTES) {
      reply.removeHeader("connection");
    }
    done();
  });
  if (opts.errorHandler !== false) {
    installErrorHandler(app);
    // The APIs take JSON only: a text/plain body would otherwise arrive as a string and read as a
    // confusing 422 ("should be an object"); without a parser it is a 415 that says JSON is expected.
    app.removeContentTypeParser("text/plain");
  }
  installAccessLog(app as unknown as FastifyInstance);
  installJsonParser(app, opts.storableInput === true);
  // Numeric query parameters must be finite numbers (Ajv's coercion lets 1e309 and Infinity through).
  app.addHook("onRoute", (route) => {
    const guard = finiteNumbersIn(route.schema);
    if (guard) appendRouteHook(route as RouteOptions, "preValidation", guard);
  });
  if (opts.storableInput) {
    // Instance-wide, so it runs before any plugin's own preValidation (which may read the input).
    // Whether a route checks its own input is decided at registration and read per request as a
    // flag, not through request.routeOptions (a getter that builds an object on every read).
    app.decorateRequest("checksOwnInput", false);
    app.addHook("onRoute", (route) => {
      if (route.config?.checksOwnInput) appendRouteHook(route as RouteOptions, "onRequest", markChecksOwnInput);
    });
    app.addHook("preValidation", refuseUnstorable);
  }

  installMetrics(app, opts.service);
  installProbes(app as unknown as FastifyInstance, opts.readiness ?? []);
  return app;
}
