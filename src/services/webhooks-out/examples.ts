import { EVENT_CATALOGUE, type EventType } from "../../contracts/webhooks-out/events.js";

type Schema = {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  minimum?: number;
  minLength?: number;
  pattern?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  default?: unknown;
};

/** The example's fixed ids: recognisable, and never an id of a real record. */
const EXAMPLE_UUID = "00000000-0000-4000-8000-00000000e4a1";

function example(s: Schema, now: string, key: string): unknown {
  if (s.const !== undefined) return s.const;
  if (s.enum?.length) return s.enum[0];
  const branches = s.anyOf ?? s.oneOf;
  if (branches) {
    const concrete = branches.find((b) => b.type !== "null") ?? branches[0]!;
    return example(concrete, now, key);
  }
  if (s.allOf?.length) return Object.assign({}, ...s.allOf.map((p) => example(p, now, key)));
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== "null") : s.type;
  switch (type) {
    case "object":
      return Object.fromEntries(Object.entries(s.properties ?? {}).map(([k, v]) => [k, example(v, now, k)]));
    case "array":
      return s.items ? [example(s.items, now, key)] : [];
    case "integer":
    case "number":
      return s.minimum !== undefined && s.minimum > 0 ? s.minimum : 1;
    case "boolean":
      return false;
    case "null":
      return null;
    case "string":
      if (s.format === "uuid") return EXAMPLE_UUID;
      if (s.format === "date-time") return now;
      if (s.format === "date") return now.slice(0, 10);
      if (s.format === "email") return "jane.doe@example.com";
      if (s.format === "uri" || s.pattern?.startsWith("^[Hh][Tt][Tt][Pp]")) return "https://example.com/hirebridge-test";
      return key === "id" || key.endsWith("_id") ? `example_${key}` : `example ${key}`.slice(0, Math.max(s.minLength ?? 1, 32));
    default:
      return null;
  }
}

/**
 * An example of `type`'s `data` (a test event's, POST …/webhook-endpoints/{id}/test): every field
 * of the type's schema filled, ids the fixed example uuid, times `now`, enums their first value,
 * so it validates against the catalogue's schema and a receiver can tell it from real data.
 */
export function exampleData(type: EventType, now = new Date()): unknown {
  return example(JSON.parse(JSON.stringify(EVENT_CATALOGUE[type].data)) as Schema, now.toISOString(), "data");
}
