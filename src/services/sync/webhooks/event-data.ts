import type { TSchema } from "@sinclair/typebox";
import { TypeCompiler, type TypeCheck } from "@sinclair/typebox/compiler";
import type { WebhookKind } from "../../../contracts/proxy/webhooks.js";
import { WEBHOOK_REQUIRED_DATA } from "../../../contracts/upstream/webhooks.js";
import type { ValidationIssue } from "../../../shared/errors.js";

/** WEBHOOK_REQUIRED_DATA compiled once per kind. */
const CHECKS = Object.fromEntries(
  Object.entries(WEBHOOK_REQUIRED_DATA).map(([kind, schema]) => [kind, TypeCompiler.Compile(schema as TSchema)]),
) as Record<WebhookKind, TypeCheck<TSchema>>;

/** At most this many places are reported; the first are enough to fix the event. */
const MAX_ISSUES = 10;

function valueAt(data: unknown, path: string[]): unknown {
  let v = data;
  for (const key of path) v = v !== null && typeof v === "object" ? (v as Record<string, unknown>)[key] : undefined;
  return v;
}

/**
 * Where an event's `data` lacks what its kind's work reads (WEBHOOK_REQUIRED_DATA), as 422 entries
 * rooted at `["body", "data"]`: "Field required" where a field is absent, the type it must have
 * otherwise. Empty when the event can be processed.
 */
export function requiredDataIssues(kind: WebhookKind, data: object): ValidationIssue[] {
  const check = CHECKS[kind];
  if (check.Check(data)) return [];
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  for (const error of check.Errors(data)) {
    if (issues.length === MAX_ISSUES) break;
    const path = error.path
      .split("/")
      .slice(1)
      .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
    if (seen.has(error.path)) continue;
    seen.add(error.path);
    const missing = valueAt(data, path) === undefined;
    issues.push({
      loc: ["body", "data", ...path.map((s) => (/^\d+$/.test(s) ? Number(s) : s))],
      msg: missing ? "Field required" : error.message,
      type: missing ? "missing" : "value_error",
    });
  }
  return issues;
}
