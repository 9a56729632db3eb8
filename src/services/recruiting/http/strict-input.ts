import type { FastifyReply, FastifyRequest } from "fastify";
import { validationError, type ValidationIssue } from "../../../shared/errors.js";
import { toValidationIssues } from "../../../shared/http/error-handler.js";

/**
 * Checks the shared Ajv setup cannot make. Ajv runs with `coerceTypes: "array"` (right for query
 * strings), which in a JSON body silently turns `null` into `0`/`false`/`""` and a scalar into a
 * one-item list, so `{"min_score": null}` would store 0. It also admits `urn:uuid:` uuids, which
 * Postgres refuses, and date-times such as a leap second (23:59:60) or year 0000, which JavaScript
 * or Postgres cannot represent. (NUL characters and unpaired surrogates are refused for every
 * service before this runs: shared/http/storable-input.ts.)
 *
 * `strictInputFor` gives each route a hook that runs these checks on the raw body and path before Ajv, and the route's Ajv errors
 * (collected with `attachValidation`) are merged in, so the client sees one complete 422.
 */
type JsonSchema = {
  type?: string | string[];
  anyOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  format?: string;
};

const UUID_TEXT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const TYPE_ISSUES: Record<string, { type: string; msg: string }> = {
  string: { type: "string_type", msg: "Input should be a valid string" },
  integer: { type: "int_type", msg: "Input should be a valid integer" },
  number: { type: "float_type", msg: "Input should be a valid number" },
  boolean: { type: "bool_type", msg: "Input should be a valid boolean" },
  array: { type: "list_type", msg: "Input should be a valid list" },
  object: { type: "model_type", msg: "Input should be a valid dictionary or object" },
  null: { type: "none_required", msg: "Input should be None" },
};

/** A date-time both JavaScript and Postgres can hold (Ajv already checked the RFC 3339 shape). */
function representable(value: string): boolean {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) return false;
  const year = new Date(ms).getUTCFullYear();
  return year >= 1 && year <= 9999;
}

function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value; // string | number | boolean | object
}

function allowedTypes(schema: JsonSchema): string[] | null {
  if (schema.type !== undefined) return Array.isArray(schema.type) ? schema.type : [schema.type];
  if (schema.anyOf) {
    const all = schema.anyOf.map(allowedTypes);
    return all.some((t) => t === null) ? null : (all.flat() as string[]);
  }
  return null; // untyped: nothing to say
}

function accepts(types: string[], actual: string): boolean {
  return types.includes(actual) || (actual === "number" && types.includes("integer"));
}

/** Issues for `value` against `schema`, without coercion; recurses into objects and arrays. */
export function strictIssues(schema: JsonSchema, value: unknown, loc: (string | number)[]): ValidationIssue[] {
  const types = allowedTypes(schema);
  const actual = jsonType(value);
  if (types && !accepts(types, actual)) {
    const first = types.find((t) => t !== "null") ?? "null";
    return [{ loc, ...(TYPE_ISSUES[first] ?? { type: "type_error", msg: `Input should be of type ${first}` }) }];
  }
  const branch = schema.anyOf?.find((s) => accepts(allowedTypes(s) ?? [actual], actual)) ?? schema;
  if (typeof value === "string") {
    if (branch.format === "uuid" && !UUID_TEXT.test(value)) return [{ loc, type: "uuid_parsing", msg: "Input should be a valid UUID" }];
    if (branch.format === "date-time" && !representable(value)) {
      return [{ loc, type: "datetime_from_date_parsing", msg: "Input should be a valid datetime between years 1 and 9999" }];
    }
    return [];
  }
  if (Array.isArray(value)) {
    const items = branch.items;
    return items ? value.flatMap((v, i) => strictIssues(items, v, [...loc, i])) : [];
  }
  if (actual === "object" && branch.properties) {
    const props = branch.properties;
    return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => (props[k] ? strictIssues(props[k], v, [...loc, k]) : []));
  }
  return [];
}

const strictFindings = new WeakMap<FastifyRequest, ValidationIssue[]>();

/**
 * The preValidation hook of a route: its raw path and body against its schemas, fixed at
 * registration (null for a route with neither, which then runs no hook).
 */
export function strictInputFor(schema: { params?: unknown; body?: unknown } | undefined) {
  const params = schema?.params as JsonSchema | undefined;
  const body = schema?.body as JsonSchema | undefined;
  if (!params && !body) return null;
  // Callback style (as reportValidation): these run on every API request and never wait.
  return function strictInput(request: FastifyRequest, _reply: FastifyReply, done: () => void): void {
    const issues = [
      ...(params ? strictIssues(params, request.params, ["path"]) : []),
      ...(body && request.body !== undefined ? strictIssues(body, request.body, ["body"]) : []),
    ];
    if (issues.length) strictFindings.set(request, issues);
    done();
  };
}

/** preHandler: one 422 with the strict findings first, then Ajv's, one entry per `loc`. */
export function reportValidation(request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void): void {
  const strict = strictFindings.get(request) ?? [];
  const ajv = request.validationError as (Error & { validation?: unknown[]; validationContext?: string }) | undefined;
  if (!strict.length && !ajv) {
    done();
    return;
  }
  const fromAjv = ajv?.validation ? toValidationIssues(ajv.validation as never, ajv.validationContext) : [];
  const seen = new Set(strict.map((i) => JSON.stringify(i.loc)));
  done(validationError([...strict, ...fromAjv.filter((i) => !seen.has(JSON.stringify(i.loc)))]));
}
