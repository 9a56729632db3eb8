import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { Kind, type TSchema } from "@sinclair/typebox";
import { describeBounds, stringFields, WEBHOOK_DATA_BOUNDS } from "../../../src/contracts/proxy/webhook-bounds.js";
import { WEBHOOK_DATA_SCHEMAS } from "../../../src/contracts/upstream/webhooks.js";
import { boundIssues, eventDataIssues, isDateTime } from "../../../src/services/sync/webhooks/event-data.js";

/** Every string field of a TypeBox schema (literal unions and nullable strings included), `[]` for array items. */
function schemaStrings(schema: TSchema, path: string[] = []): string[] {
  const kind = schema[Kind] as string;
  if (kind === "String" || (kind === "Literal" && typeof schema["const"] === "string")) return [path.join(".")];
  if (kind === "Object")
    return Object.entries(schema["properties"] as Record<string, TSchema>).flatMap(([k, s]) => schemaStrings(s, [...path, k]));
  if (kind === "Array") return schemaStrings(schema["items"] as TSchema, [...path, "[]"]);
  if (kind === "Union") return [...new Set((schema["anyOf"] as TSchema[]).flatMap((s) => schemaStrings(s, path)))];
  return [];
}

test("every string field of the six kinds' data, as the upstream documents it, has a bound", () => {
  for (const [kind, schema] of Object.entries(WEBHOOK_DATA_SCHEMAS)) {
    const bounded = stringFields(WEBHOOK_DATA_BOUNDS[kind as keyof typeof WEBHOOK_DATA_SCHEMAS]).map((f) => f.path.join("."));
    assert.deepEqual(schemaStrings(schema).sort(), bounded.sort(), kind);
  }
});

test("docs/sync.md lists every kind's bounds as the table declares them", () => {
  const docs = readFileSync(new URL("../../../docs/sync.md", import.meta.url), "utf8");
  for (const [kind, bounds] of Object.entries(WEBHOOK_DATA_BOUNDS)) {
    const line = describeBounds(kind, bounds);
    assert.ok(docs.includes(line), `docs/sync.md lacks:\n${line}`);
  }
});

test("a date-time is one that both a strict ISO 8601 pattern (with offset) and Date.parse accept, on a real day", () => {
  for (const ok of ["2026-01-31T12:00:00Z", "2026-01-31T12:00Z", "2024-02-29T00:00:00.123456+02:00", "2026-12-31T23:59:59-05:30"]) {
    assert.equal(isDateTime(ok), true, ok);
  }
  for (const bad of [
    "2026-99-99T99:99",
    "2026-02-30T10:00:00Z",
    "2025-02-29T10:00:00Z",
    "2026-01-01T24:00:00Z",
    "2026-01-01T10:00:00",
    "2026-01-01",
    "yesterday",
    "2026-01-01T10:00:00Zjunk",
  ]) {
    assert.equal(isDateTime(bad), false, bad);
  }
});

test("boundIssues: required, type, length, format and list size, each at its loc", () => {
  assert.deepEqual(eventDataIssues("data-changed", { integration_id: "x", changed_models: [{ name: "ats_jobs" }] }), []);
  assert.deepEqual(
    eventDataIssues("data-changed", {
      integration_id: "",
      integration_tool: 3,
      changed_models: [{ name: "ats_jobs" }, {}, { name: "n".repeat(101) }],
    }),
    [
      { loc: ["body", "data", "integration_id"], msg: "String should have at least 1 character", type: "string_too_short" },
      { loc: ["body", "data", "integration_tool"], msg: "Input should be a valid string", type: "string_type" },
      { loc: ["body", "data", "changed_models", 1, "name"], msg: "Field required", type: "missing" },
      { loc: ["body", "data", "changed_models", 2, "name"], msg: "String should have at most 100 characters", type: "string_too_long" },
    ],
  );
  // A field not required may be null or absent; a required one may not.
  assert.deepEqual(
    eventDataIssues("integration-state-changed", {
      integration_id: "x",
      state: "ACTIVE",
      updated_at: "2026-01-01T00:00:00Z",
      end_user: null,
    }),
    [{ loc: ["body", "data", "end_user"], msg: "Field required", type: "missing" }],
  );
  assert.deepEqual(
    boundIssues({ models: { type: "array", maxItems: 2, items: { type: "string", max: 5 } } }, { models: ["a", "b", "c"] }, ["x"]),
    [{ loc: ["x", "models"], msg: "List should have at most 2 items", type: "too_long" }],
  );
});
