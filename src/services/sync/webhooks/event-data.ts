import type { FieldBound, FieldBounds } from "../../../contracts/proxy/webhook-bounds.js";
import { WEBHOOK_DATA_BOUNDS } from "../../../contracts/proxy/webhook-bounds.js";
import type { WebhookKind } from "../../../contracts/proxy/webhooks.js";
import type { ValidationIssue } from "../../../shared/errors.js";

/** At most this many places are reported; the first are enough to fix the event. */
const MAX_ISSUES = 10;

/**
 * An ISO 8601 date-time with its offset, as the upstream's own SDK parses them (zod
 * `datetime({ offset: true })`): `Date.parse` alone takes `2026-02-30` (as March 2nd) and `24:00`,
 * and reads a time without offset in the server's zone.
 */
const DATE_TIME =
  /^(\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,9})?)?(Z|[+-]([01]\d|2[0-3]):?[0-5]\d)$/;

/** Whether `s` is a date-time that both the strict pattern and `Date.parse` accept, on a day its month has. */
export function isDateTime(s: string): boolean {
  const m = DATE_TIME.exec(s);
  if (!m || Number.isNaN(Date.parse(s))) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return new Date(Date.UTC(year, month, 0)).getUTCDate() >= day;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The issue of one present, non-null value against its rule; nested ones are checked by `walk`. */
function valueIssue(b: FieldBound, v: unknown): Omit<ValidationIssue, "loc"> | null {
  switch (b.type) {
    case "string":
      if (typeof v !== "string") return { msg: "Input should be a valid string", type: "string_type" };
      if (v.length > b.max) return { msg: `String should have at most ${b.max} characters`, type: "string_too_long" };
      if (b.min && v.length < b.min)
        return { msg: `String should have at least ${b.min} character${b.min > 1 ? "s" : ""}`, type: "string_too_short" };
      if (b.format === "date-time" && !isDateTime(v))
        return { msg: "Input should be a valid datetime with its offset (ISO 8601, e.g. 2026-01-31T12:00:00Z)", type: "datetime_parsing" };
      return null;
    case "number":
      return typeof v === "number" && Number.isFinite(v) ? null : { msg: "Input should be a valid number", type: "float_type" };
    case "array":
      if (!Array.isArray(v)) return { msg: "Input should be a valid list", type: "list_type" };
      if (v.length > b.maxItems) return { msg: `List should have at most ${b.maxItems} items`, type: "too_long" };
      return null;
    case "object":
      return isObject(v) ? null : { msg: "Input should be a valid dictionary or object", type: "model_type" };
  }
}

/**
 * The path being checked is one array, pushed and popped as the walk goes, and copied only into
 * an issue: an event within its bounds (nearly all of them, on the intake's hot path) allocates
 * nothing per field.
 */
type Walk = { path: (string | number)[]; out: ValidationIssue[] };

/** Checks one value (its key already on the path) against its rule, and what it holds against theirs. */
function check(b: FieldBound, v: unknown, w: Walk): void {
  if (v === undefined || v === null) {
    if (b.required) w.out.push({ loc: [...w.path], msg: "Field required", type: "missing" });
    return;
  }
  const issue = valueIssue(b, v);
  if (issue) w.out.push({ loc: [...w.path], ...issue });
  else if (b.type === "object") walk(b.fields, v as Record<string, unknown>, w);
  else if (b.type === "array") {
    const items = v as unknown[];
    for (let i = 0; i < items.length && w.out.length < MAX_ISSUES; i++) {
      w.path.push(i);
      check(b.items, items[i], w);
      w.path.pop();
    }
  }
}

/** Each table's entries, listed once (the tables are constants). */
const entriesOf = new WeakMap<FieldBounds, [string, FieldBound][]>();

function walk(bounds: FieldBounds, value: Record<string, unknown>, w: Walk): void {
  let entries = entriesOf.get(bounds);
  if (!entries) {
    entries = Object.entries(bounds);
    entriesOf.set(bounds, entries);
  }
  for (const [key, b] of entries) {
    if (w.out.length >= MAX_ISSUES) return;
    w.path.push(key);
    check(b, value[key], w);
    w.path.pop();
  }
}

/**
 * Where `value` breaks a table of bounds (contracts/proxy/webhook-bounds.ts), as 422 entries rooted
 * at `loc`: "Field required" where a required field is absent or null, otherwise its type, bound or
 * format. Empty when the value is within every bound. Exported for every receiver that declares a
 * table (the assessment orders' too).
 */
export function boundIssues(bounds: FieldBounds, value: Record<string, unknown>, loc: (string | number)[]): ValidationIssue[] {
  const w: Walk = { path: [...loc], out: [] };
  walk(bounds, value, w);
  return w.out;
}

/** Where an event's `data` breaks its kind's bounds (WEBHOOK_DATA_BOUNDS), rooted at `["body", "data"]`. */
export function eventDataIssues(kind: WebhookKind, data: Record<string, unknown>): ValidationIssue[] {
  return boundIssues(WEBHOOK_DATA_BOUNDS[kind], data, ["body", "data"]);
}
