/**
 * What the webhook receivers accept of each upstream event, declared once: every field intake
 * stores or indexes has a bound, and every field a kind's work reads is required. The one table
 * is used by the 422 check at intake (services/sync/webhooks/event-data.ts), by the worker before
 * it runs an event stored under older rules, by the receivers' OpenAPI body schema, and for the
 * list in docs/sync.md (test/unit/webhooks/bounds.test.ts keeps the two equal). Another receiver
 * (e.g. an assessment order's) declares its own table with the same types and checks it with the
 * same function.
 *
 * A field that is not required may be absent or null; when present it must have its type, its
 * bound and its format. Fields the table does not name are kept as sent (the upstream may add
 * some); the body limit bounds them.
 */
import type { WebhookEventType } from "../upstream/webhooks.js";

/** One field's rule. `required`: its kind's work reads it, so an event without it is refused. */
export type FieldBound =
  | { type: "string"; max: number; min?: number; format?: "date-time"; required?: boolean }
  | { type: "number"; required?: boolean }
  | { type: "object"; fields: Record<string, FieldBound>; required?: boolean }
  | { type: "array"; maxItems: number; items: FieldBound; required?: boolean };

/** The rules of an object's fields, by name. */
export type FieldBounds = Record<string, FieldBound>;

/** The bounds, by what a field holds. */
export const WEBHOOK_LIMITS = {
  /** Event ids, integration ids, sync ids, origin ids (the upstream's are 24-40 characters). */
  id: 255,
  /** Tool names, categories, states, statuses, model names. */
  code: 100,
  /** An end user's organisation name. */
  name: 255,
  /** An email address (RFC 5321: 64 + 1 + 255). */
  email: 320,
  /** A log URL. */
  url: 2048,
  /** An ISO 8601 date-time. */
  dateTime: 40,
  /** Models named by one data-changed event (the upstream has about 40). */
  changedModels: 200,
} as const;

const L = WEBHOOK_LIMITS;
// A required id must not be empty (it names what the work acts on); another may be.
const id = (required = false): FieldBound => (required ? { type: "string", min: 1, max: L.id, required } : { type: "string", max: L.id });
const code = (required = false): FieldBound => ({ type: "string", max: L.code, required });
const when = (required = false): FieldBound => ({ type: "string", max: L.dateTime, format: "date-time", required });
const url: FieldBound = { type: "string", max: L.url };
const endUser = (required = false): FieldBound => ({
  type: "object",
  required,
  fields: { organization_name: { type: "string", max: L.name }, creator_email: { type: "string", max: L.email }, origin_id: id() },
});
const TOOL: FieldBounds = { integration_tool: code(), integration_category: code() };

/** The event's envelope: `type` must equal the receiver's kind (checked beside these). */
export const WEBHOOK_ENVELOPE_BOUNDS: FieldBounds = { id: id(true) };

/** Each kind's `data`: what is required (its work reads it) and every field's bound and format. */
export const WEBHOOK_DATA_BOUNDS: Record<WebhookEventType, FieldBounds> = {
  "data-changed": {
    integration_id: id(true),
    ...TOOL,
    changed_models: { type: "array", required: true, maxItems: L.changedModels, items: { type: "object", fields: { name: code(true) } } },
  },
  "sync-finished": {
    sync_id: id(),
    sync_state: code(true),
    sync_started_at: when(),
    sync_ended_at: when(),
    sync_duration_seconds: { type: "number" },
    integration_id: id(true),
    ...TOOL,
    end_user: endUser(),
    log_url: url,
  },
  "integration-created": { id: id(true), tool: code(true), category: code(), end_user: endUser() },
  "integration-deleted": { id: id(true), tool: code(), category: code(), end_user: endUser(), deleted_at: when(true) },
  "connection-flow-failed": { ...TOOL, end_user: endUser(), log_url: url },
  "integration-state-changed": {
    integration_id: id(true),
    ...TOOL,
    end_user: endUser(true),
    qa_status: code(),
    setup_status: code(),
    state: code(true),
    updated_at: when(true),
  },
};

/** Every string field of `bounds` with its path (array items as `[]`), e.g. `["changed_models", "[]", "name"]`. */
export function stringFields(
  bounds: FieldBounds,
  path: string[] = [],
): { path: string[]; bound: Extract<FieldBound, { type: "string" }> }[] {
  const out: { path: string[]; bound: Extract<FieldBound, { type: "string" }> }[] = [];
  const visit = (b: FieldBound, at: string[]) => {
    if (b.type === "string") out.push({ path: at, bound: b });
    else if (b.type === "object") for (const [k, f] of Object.entries(b.fields)) visit(f, [...at, k]);
    else if (b.type === "array") visit(b.items, [...at, "[]"]);
  };
  for (const [k, f] of Object.entries(bounds)) visit(f, [...path, k]);
  return out;
}

/** The JSON schema of a table, for the OpenAPI document (the check itself is event-data.ts's). */
export function boundsJsonSchema(bounds: FieldBounds): Record<string, unknown> {
  // OpenAPI 3.1: a field that is not required may be null.
  const typeOf = (b: FieldBound) => (b.required ? b.type : [b.type, "null"]);
  const one = (b: FieldBound): Record<string, unknown> => {
    if (b.type === "string")
      return { type: typeOf(b), maxLength: b.max, ...(b.min ? { minLength: b.min } : {}), ...(b.format ? { format: b.format } : {}) };
    if (b.type === "number") return { type: typeOf(b) };
    if (b.type === "array") return { type: typeOf(b), maxItems: b.maxItems, items: one(b.items) };
    return { ...boundsJsonSchema(b.fields), type: typeOf(b) };
  };
  const required = Object.keys(bounds).filter((k) => bounds[k]!.required);
  return {
    type: "object",
    additionalProperties: true,
    properties: Object.fromEntries(Object.entries(bounds).map(([k, b]) => [k, one(b)])),
    ...(required.length ? { required } : {}),
  };
}

/** The JSON schema of one kind's event as its receiver documents it. */
export function webhookEventJsonSchema(kind: WebhookEventType): Record<string, unknown> {
  const schema = boundsJsonSchema({
    ...WEBHOOK_ENVELOPE_BOUNDS,
    data: { type: "object", required: true, fields: WEBHOOK_DATA_BOUNDS[kind] },
  });
  return {
    ...schema,
    properties: { ...(schema["properties"] as object), type: { type: "string", enum: [kind] } },
    required: ["id", "type", "data"],
    description: "The upstream's `{id, type, data}` event. A field beyond its bound, or a required one missing, is a 422.",
  };
}

/**
 * One line of docs/sync.md per kind: each field with its bound, required ones in bold, e.g.
 * "`data-changed`: **`integration_id`** 1–255 chars, …".
 */
export function describeBounds(kind: string, bounds: FieldBounds): string {
  const parts: string[] = [];
  const visit = (b: FieldBound, name: string) => {
    const shown = b.required ? `**\`${name}\`**` : `\`${name}\``;
    if (b.type === "string") {
      const size = b.min ? `${b.min}–${b.max} chars` : `≤ ${b.max} chars`;
      parts.push(`${shown} ${b.format === "date-time" ? `ISO date-time, ${size}` : size}`);
    } else if (b.type === "number") parts.push(`${shown} number`);
    else if (b.type === "array") {
      parts.push(`${shown} ≤ ${b.maxItems} items`);
      visit(b.items, `${name}[]`);
    } else {
      // An object is listed by its fields; on its own only when it is required.
      if (b.required) parts.push(`${shown} object`);
      for (const [k, f] of Object.entries(b.fields)) visit(f, `${name}.${k}`);
    }
  };
  for (const [k, b] of Object.entries(bounds)) visit(b, k);
  return `\`${kind}\`: ${parts.join(", ")}`;
}
