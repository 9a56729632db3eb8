import { pino, type DestinationStream, type Logger, type LoggerOptions } from "pino";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { redactUrl } from "./redact.js";
import { onAnswerByRoute } from "./route-hooks.js";

// What a logged URL keeps of a secret: nothing (redact.ts); re-exported for the other loggers of URLs.
export { redactUrl };

export type LogFormat = "auto" | "json" | "pretty";

/** "auto": pretty for a person at a terminal, JSON for log collectors (a pipe, a file, a container). */
export function resolveLogFormat(format: LogFormat, stdout: { isTTY?: boolean } = process.stdout): "json" | "pretty" {
  return format === "auto" ? (stdout.isTTY ? "pretty" : "json") : format;
}

/**
 * `color`: whether pretty lines may be coloured on a terminal (the CLI says no when NO_COLOR is
 * set; default yes).
 */
export function createLogger(
  level: string,
  opts: { name?: string; format?: LogFormat; destination?: NodeJS.WritableStream; color?: boolean } = {},
): Logger {
  const out = opts.destination ?? process.stdout;
  const pretty = resolveLogFormat(opts.format ?? "json", out as { isTTY?: boolean }) === "pretty";
  const options: LoggerOptions = {
    level,
    ...(opts.name ? { name: opts.name } : {}),
    redact: {
      paths: [
        "req.headers.authorization",
        "req.headers.cookie",
        "req.headers['x-upstream-signature']",
        "req.headers['x-kombo-signature']",
        "headers.authorization",
        "*.password",
        "*.refresh_token",
        "*.access_token",
      ],
      censor: "<redacted>",
    },
    serializers: {
      req: (req: { method: string; url: string; id?: string; ip?: string }) => ({
        method: req.method,
        url: redactUrl(req.url),
        remoteAddress: req.ip,
      }),
    },
  };
  if (pretty) return pino(options, prettyStream(out, opts.color !== false));
  return opts.destination ? pino(options, opts.destination as DestinationStream) : pino(options);
}

/** Probes and scrapes: every few seconds from orchestrators, so only at debug. */
const QUIET_ROUTES = new Set(["/healthz", "/readyz", "/metrics"]);

/**
 * One line per request, when it is answered: method, route template (the raw URL, redacted, too),
 * status and duration. Replaces Fastify's two lines (incoming, completed), so it costs no more. The
 * route and its level are fixed per route at registration (onAnswerByRoute).
 */
export function installAccessLog(app: FastifyInstance): void {
  onAnswerByRoute(app, (route) => {
    const level = route !== null && QUIET_ROUTES.has(route) ? "debug" : "info";
    return (request, reply) => logRequest(request, reply, route, level);
  });
}

function logRequest(request: FastifyRequest, reply: FastifyReply, route: string | null, level: "debug" | "info"): void {
  if (!(request.log as unknown as Logger).isLevelEnabled(level)) return;
  request.log[level](
    {
      method: request.method,
      route,
      url: redactUrl(request.url),
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
      remote: request.ip,
    },
    "request",
  );
}

const LEVELS: Record<number, string> = { 10: "TRACE", 20: "DEBUG", 30: "INFO ", 40: "WARN ", 50: "ERROR", 60: "FATAL" };
const COLORS: Record<number, string> = { 10: "90", 20: "90", 30: "32", 40: "33", 50: "31", 60: "31" };
/** Fields every line has, or that the line's head shows already. */
const HEAD_FIELDS = new Set(["level", "time", "pid", "hostname", "msg", "service", "component", "request_id", "err"]);

/** A value for `key=value`: strings bare unless they hold spaces, the rest as JSON. */
const show = (v: unknown) => (typeof v === "string" ? (/\s/.test(v) ? JSON.stringify(v) : v) : JSON.stringify(v));

/**
 * pino's JSON lines turned into one readable line each, for a person at a terminal:
 * `12:01:02 INFO  api  GET /api/v1/org/:org_id/position 200 4.1ms`, or for other events the message
 * and its fields as key=value (an error's stack on the lines after). Runs only in pretty mode.
 */
export function prettyLine(json: string, color: boolean): string {
  const o = JSON.parse(json) as Record<string, unknown>;
  const level = Number(o["level"]);
  const time = new Date(Number(o["time"])).toISOString().slice(11, 19);
  const tag = LEVELS[level] ?? String(level);
  const head = `${time} ${color ? `\u001b[${COLORS[level] ?? "0"}m${tag}\u001b[0m` : tag}${o["service"] ? ` ${String(o["service"])}` : ""}${o["component"] ? `/${String(o["component"])}` : ""}`;
  let body: string;
  if (o["msg"] === "request" && typeof o["method"] === "string") {
    body = `${o["method"]} ${String(o["route"] ?? o["url"])} ${String(o["status"])} ${String(o["ms"])}ms`;
  } else {
    const fields = Object.entries(o)
      .filter(([k, v]) => !HEAD_FIELDS.has(k) && v !== undefined)
      .map(([k, v]) => `${k}=${show(v)}`);
    body = [String(o["msg"] ?? ""), ...fields].filter(Boolean).join(" ");
  }
  const err = o["err"] as { message?: string; stack?: string } | undefined;
  const tail = err ? `\n${err.stack ?? err.message ?? JSON.stringify(err)}` : "";
  return `${head}  ${body}${tail}\n`;
}

function prettyStream(out: NodeJS.WritableStream, colorAllowed: boolean): DestinationStream {
  const color = (out as { isTTY?: boolean }).isTTY === true && colorAllowed;
  return {
    write(chunk: string) {
      for (const line of chunk.split("\n")) if (line) out.write(prettyLine(line, color));
    },
  };
}
