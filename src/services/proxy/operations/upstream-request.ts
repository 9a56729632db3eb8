import type { Static, TSchema } from "@sinclair/typebox";
import type { UpstreamRequest } from "../../../shared/upstream/upstream-client.js";
import type { ProxyOperation } from "./operation.js";

export type OperationInput = {
  params?: Record<string, unknown> | undefined;
  query?: Record<string, unknown> | undefined;
  body?: unknown;
  requestId: string;
};

/**
 * The upstream request of an operation, from its mapping row and the validated input: path
 * parameters percent-encoded into the upstream path, `integration_id` moved to `X-Integration-Id`
 * where the upstream wants it, list parameters renamed, empty values dropped, and the body shaped
 * to the contract (see `shapeBody`).
 */
export function toUpstreamRequest(op: ProxyOperation, input: OperationInput, body?: unknown): UpstreamRequest {
  const { skip, rename, pathParams } = planOf(op);
  const params = input.params ?? {};
  const path = pathParams
    ? op.upstream.path.replace(PATH_PARAM, (_, name: string) => encodeURIComponent(String(params[name] ?? "")))
    : op.upstream.path;
  const query: Record<string, string> = {};
  const given = input.query ?? {};
  for (const key in given) {
    const value = given[key];
    if (skip.has(key) || value === undefined || value === null || value === "") continue;
    query[rename[key] ?? key] = String(value);
  }
  const integrationId = op.upstream.integrationHeader ? String(input.query?.["integration_id"] ?? "") : undefined;
  const upstreamBody =
    op.upstream.method === "GET"
      ? undefined
      : body !== undefined
        ? body
        : op.upstream.body === "empty-object"
          ? {}
          : op.schema.body
            ? shapeBody(op.schema.body, input.body)
            : undefined;
  return {
    method: op.upstream.method,
    path,
    query,
    integrationId,
    body: upstreamBody,
    requestId: input.requestId,
    read: op.kind === "read",
    operation: op.operationId,
  };
}

const PATH_PARAM = /\{(\w+)\}/g;

/** What of an operation's mapping row every request needs, worked out once per operation. */
type Plan = { skip: ReadonlySet<string>; rename: Readonly<Record<string, string>>; pathParams: boolean };
const plans = new WeakMap<ProxyOperation, Plan>();

function planOf(op: ProxyOperation): Plan {
  let plan = plans.get(op);
  if (!plan) {
    plan = {
      skip: new Set<string>(["integration_id", ...(op.upstream.consumes ?? [])]),
      rename: op.upstream.rename ?? {},
      pathParams: op.upstream.path.includes("{"),
    };
    plans.set(op, plan);
  }
  return plan;
}

type JsonSchemaNode = {
  type?: string;
  properties?: Record<string, JsonSchemaNode>;
  required?: string[];
  additionalProperties?: unknown;
  items?: JsonSchemaNode;
  anyOf?: JsonSchemaNode[];
  default?: unknown;
  const?: unknown;
};

/**
 * The branch of a union that `value` is: the first of its JSON type whose constants (a tagged
 * union's `type: "TEXT"`) and required fields it has, so each member keeps its own fields.
 */
function branchOf(schema: JsonSchemaNode, value: unknown): JsonSchemaNode {
  const kind = Array.isArray(value) ? "array" : typeof value;
  const candidates = schema.anyOf?.filter((s) => s.type === kind);
  if (!candidates) return schema;
  const fits = (s: JsonSchemaNode) => {
    if (kind !== "object" || !s.properties) return true;
    const record = value as Record<string, unknown>;
    const tagsMatch = Object.entries(s.properties).every(([k, p]) => p.const === undefined || record[k] === p.const);
    return tagsMatch && (s.required ?? []).every((k) => record[k] !== undefined);
  };
  return candidates.find(fits) ?? candidates[0] ?? schema;
}

/**
 * The body the upstream gets: the contract's fields only (as an API that validates with a model
 * forwards its model, not the raw JSON), with an explicit null on an optional field read as "not
 * given": the spec's default when it declares one, otherwise the field is left out. Objects with
 * arbitrary properties (custom_fields, the force-sync body) are passed as they are.
 */
export function shapeBody<S extends TSchema>(schema: S, value: Static<S>): Static<S>;
export function shapeBody(schema: TSchema, value: unknown): unknown;
export function shapeBody(schema: TSchema, value: unknown): unknown {
  return shape(schema as JsonSchemaNode, value);
}

function shape(schema: JsonSchemaNode, value: unknown): unknown {
  if (value === null || value === undefined) return value;
  const node = branchOf(schema, value);
  if (node.type === "object" && typeof value === "object" && !Array.isArray(value)) {
    if (node.additionalProperties === true || !node.properties) return value;
    const input = value as Record<string, unknown>;
    const required = new Set(node.required ?? []);
    const out: Record<string, unknown> = {};
    for (const [key, propSchema] of Object.entries(node.properties)) {
      const v = input[key];
      if (v === undefined) continue;
      if (v === null && !required.has(key)) {
        if (propSchema.default !== undefined) out[key] = propSchema.default;
        continue;
      }
      out[key] = shape(propSchema, v);
    }
    return out;
  }
  if (node.type === "array" && Array.isArray(value) && node.items) {
    const items = node.items;
    return value.map((item) => shape(items, item));
  }
  return value;
}
