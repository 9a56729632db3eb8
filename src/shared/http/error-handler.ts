import type { FastifyError, FastifyInstance } from "fastify";
import { HTTP_URL_PATTERN } from "../../contracts/common.js";
import { isStorageUnavailable, STORAGE_RETRY_AFTER_SECONDS } from "../db/unavailable.js";
import { isAppError, type ValidationIssue } from "../errors.js";
import { trackRoutesForNotFound } from "./not-found.js";

type AjvError = {
  keyword: string;
  instancePath: string;
  message?: string;
  params: Record<string, unknown>;
};

const CONTEXT_TO_LOC: Record<string, string> = {
  body: "body",
  querystring: "query",
  params: "path",
  headers: "header",
};

/** FastAPI/pydantic-style `type` and `msg` for the Ajv keywords our schemas use. */
function describe(err: AjvError): { type: string; msg: string } {
  const p = err.params;
  switch (err.keyword) {
    case "required":
      return { type: "missing", msg: "Field required" };
    case "additionalProperties":
      return { type: "extra_forbidden", msg: "Extra inputs are not permitted" };
    case "minLength":
      return { type: "string_too_short", msg: `String should have at least ${p["limit"]} character${p["limit"] === 1 ? "" : "s"}` };
    case "maxLength":
      return { type: "string_too_long", msg: `String should have at most ${p["limit"]} characters` };
    case "minimum":
      return { type: "greater_than_equal", msg: `Input should be greater than or equal to ${p["limit"]}` };
    case "maximum":
      return { type: "less_than_equal", msg: `Input should be less than or equal to ${p["limit"]}` };
    case "exclusiveMinimum":
      return { type: "greater_than", msg: `Input should be greater than ${p["limit"]}` };
    case "minItems":
      return { type: "too_short", msg: `List should have at least ${p["limit"]} item${p["limit"] === 1 ? "" : "s"}` };
    case "maxItems":
      return { type: "too_long", msg: `List should have at most ${p["limit"]} items` };
    case "uniqueItems":
      return { type: "unique_items", msg: "Items should be unique" };
    case "enum":
      return {
        type: "enum",
        msg: `Input should be ${formatAlternatives((p["allowedValues"] as unknown[]) ?? [])}`,
      };
    case "const":
      return { type: "literal_error", msg: `Input should be ${JSON.stringify(p["allowedValue"])}` };
    case "pattern":
      // pydantic's own answer to a link of another scheme.
      if (p["pattern"] === HTTP_URL_PATTERN) return { type: "url_scheme", msg: "URL scheme should be 'http' or 'https'" };
      return { type: "string_pattern_mismatch", msg: `String should match pattern '${p["pattern"]}'` };
    case "format":
      return formatIssue(String(p["format"]));
    case "storable": // storable-input.ts: NUL, unpaired surrogates, bytes that are not UTF-8
      return { type: "string_pattern_mismatch", msg: err.message ?? "String cannot be stored" };
    case "type":
      return typeIssue(String(p["type"]));
    case "anyOf":
    case "oneOf":
      return { type: "value_error", msg: "Input does not match any allowed type" };
    default:
      return { type: "value_error", msg: err.message ?? "Invalid value" };
  }
}

function formatAlternatives(values: unknown[]): string {
  const quoted = values.map((v) => `'${String(v)}'`);
  return quoted.length <= 1 ? (quoted[0] ?? "") : `${quoted.slice(0, -1).join(", ")} or ${quoted.at(-1)}`;
}

function formatIssue(format: string): { type: string; msg: string } {
  switch (format) {
    case "email":
      return { type: "value_error", msg: "value is not a valid email address" };
    case "uuid":
      return { type: "uuid_parsing", msg: "Input should be a valid UUID" };
    case "date-time":
      return { type: "datetime_from_date_parsing", msg: "Input should be a valid datetime" };
    case "uri":
      return { type: "url_parsing", msg: "Input should be a valid URL" };
    default:
      return { type: "value_error", msg: `Input should match format '${format}'` };
  }
}

function typeIssue(type: string): { type: string; msg: string } {
  const first = type.split(",")[0] ?? type;
  const names: Record<string, [string, string]> = {
    string: ["string_type", "Input should be a valid string"],
    integer: ["int_type", "Input should be a valid integer"],
    number: ["float_type", "Input should be a valid number"],
    boolean: ["bool_type", "Input should be a valid boolean"],
    array: ["list_type", "Input should be a valid list"],
    object: ["model_type", "Input should be a valid dictionary or object"],
    null: ["none_required", "Input should be None"],
  };
  const [t, msg] = names[first] ?? ["type_error", `Input should be of type ${type}`];
  return { type: t, msg };
}

/** Ajv errors → HTTPValidationError `detail` entries, `loc` rooted at body/query/path/header. */
export function toValidationIssues(errors: AjvError[], context: string | undefined): ValidationIssue[] {
  const root = CONTEXT_TO_LOC[context ?? "body"] ?? "body";
  const seen = new Set<string>();
  const issues: ValidationIssue[] = [];
  // For "X or null" (anyOf [null, X]) the null branch's "should be None" and the anyOf summary say
  // less than the X branch's error at the same place: report those only when nothing else is there.
  const weak = (e: AjvError) => e.keyword === "anyOf" || e.keyword === "oneOf" || (e.keyword === "type" && e.params["type"] === "null");
  const strongAt = new Set(errors.filter((e) => !weak(e)).map((e) => e.instancePath));
  for (const err of errors) {
    if (weak(err) && strongAt.has(err.instancePath)) continue;
    // anyOf branches (e.g. `string | null`) produce one error per branch plus the anyOf itself;
    // the first concrete branch error is the most useful, the rest is noise.
    const path = err.instancePath
      .split("/")
      .slice(1)
      .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"))
      .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
    if (err.keyword === "required") path.push(String(err.params["missingProperty"]));
    if (err.keyword === "additionalProperties") path.push(String(err.params["additionalProperty"]));
    const loc = [root, ...path];
    const key = JSON.stringify(loc);
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push({ loc, ...describe(err) });
  }
  return issues;
}

/** Fastify's body-parsing failures, reported as FastAPI reports them (422, not 400). */
function bodyParseIssues(error: FastifyError): ValidationIssue[] | null {
  switch (error.code) {
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return [{ loc: ["body"], msg: "Field required", type: "missing" }];
    case "FST_ERR_CTP_INVALID_JSON_BODY":
      return [{ loc: ["body", 0], msg: "JSON decode error", type: "json_invalid" }];
    default:
      if (error instanceof SyntaxError && error.statusCode === 400) {
        return [{ loc: ["body", 0], msg: "JSON decode error", type: "json_invalid" }];
      }
      return null;
  }
}

/**
 * The one error handler of the resource servers (recruiting API, proxy): validation → 422
 * `{detail:[{loc,msg,type}]}`; AppError → its status and `{detail}`; client errors Fastify raises
 * (413, 415, 404 …) → their status with a `detail` message; storage that cannot be reached → 503
 * with Retry-After; anything else → a bare 500, logged with
 * the request id and never echoed (no stack, no SQL).
 */
export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error.validation) {
      const issues = toValidationIssues(error.validation as unknown as AjvError[], error.validationContext);
      return reply.status(422).send({ detail: issues });
    }
    const parseIssues = bodyParseIssues(error);
    if (parseIssues) return reply.status(422).send({ detail: parseIssues });
    if (isAppError(error)) {
      if (error.statusCode >= 500) request.log.warn({ code: error.code, err: error.cause ?? error }, error.message);
      return reply.status(error.statusCode).headers(error.headers).send({ detail: error.detail });
    }
    const status = typeof error.statusCode === "number" ? error.statusCode : 500;
    if (error.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE") {
      const given = request.headers["content-type"];
      return reply.status(415).send({
        detail: `Unsupported Media Type: send the body as JSON with Content-Type: application/json${given ? ` (got ${given.split(";")[0]})` : ""}`,
      });
    }
    if (status >= 400 && status < 500) {
      return reply.status(status).send({ detail: error.message });
    }
    if (isStorageUnavailable(error)) {
      // An outage, not a bug: the client may retry (nothing was acknowledged), and readiness fails meanwhile.
      request.log.warn({ err: error }, "storage unavailable");
      return reply
        .status(503)
        .header("retry-after", String(STORAGE_RETRY_AFTER_SECONDS))
        .send({ detail: "Service temporarily unavailable: storage cannot be reached; retry later" });
    }
    request.log.error({ err: error }, "unhandled error");
    return reply.status(500).send({ detail: "Internal Server Error" });
  });
  const notFoundDetail = trackRoutesForNotFound(app);
  app.setNotFoundHandler((request, reply) => {
    reply.status(404).send({ detail: notFoundDetail(request) });
  });
}
