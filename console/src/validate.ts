/**
 * Checks a request body against the API's own contract before it is sent, and words each problem
 * exactly as the API would (its Ajv → FastAPI mapping, `toValidationIssues`). The page's CSP allows
 * no `eval`, so Ajv's compiled validators cannot run here: this walks the JSON Schema keywords the
 * contracts use on scalar fields (type, enum, minLength, maxLength, minimum, maximum), which is
 * what the console's forms send.
 */
import type { TObject, TSchema } from "@sinclair/typebox";
import { toValidationIssues } from "../../src/shared/http/error-handler.js";
import type { ValidationIssue } from "../../src/shared/errors.js";

type AjvLike = { keyword: string; instancePath: string; params: Record<string, unknown> };
type Plain = { type?: string | string[]; enum?: unknown[]; minLength?: number; maxLength?: number; minimum?: number; maximum?: number };

const typeOf = (v: unknown) =>
  v === null ? "null" : Array.isArray(v) ? "array" : typeof v === "number" ? (Number.isInteger(v) ? "integer" : "number") : typeof v;

function check(schema: Plain, value: unknown, path: string): AjvLike[] {
  const types = schema.type === undefined ? [] : [schema.type].flat();
  const actual = typeOf(value);
  if (types.length && !types.some((t) => t === actual || (t === "number" && actual === "integer"))) {
    return [{ keyword: "type", instancePath: path, params: { type: types.filter((t) => t !== "null").join(",") || types[0] } }];
  }
  if (value === null) return [];
  const errors: AjvLike[] = [];
  if (schema.enum && !schema.enum.includes(value))
    errors.push({ keyword: "enum", instancePath: path, params: { allowedValues: schema.enum } });
  if (typeof value === "string") {
    if (schema.minLength !== undefined && value.length < schema.minLength)
      errors.push({ keyword: "minLength", instancePath: path, params: { limit: schema.minLength } });
    if (schema.maxLength !== undefined && value.length > schema.maxLength)
      errors.push({ keyword: "maxLength", instancePath: path, params: { limit: schema.maxLength } });
  }
  if (typeof value === "number") {
    if (schema.minimum !== undefined && value < schema.minimum)
      errors.push({ keyword: "minimum", instancePath: path, params: { limit: schema.minimum } });
    if (schema.maximum !== undefined && value > schema.maximum)
      errors.push({ keyword: "maximum", instancePath: path, params: { limit: schema.maximum } });
  }
  return errors;
}

/** The problems the API would answer (422 `detail`) for `body` under the object schema `schema`. */
export function validateBody(schema: TObject, body: Record<string, unknown>): ValidationIssue[] {
  const errors: AjvLike[] = [];
  for (const [key, value] of Object.entries(body)) {
    const property = (schema.properties as Record<string, TSchema>)[key];
    if (!property) errors.push({ keyword: "additionalProperties", instancePath: "", params: { additionalProperty: key } });
    else errors.push(...check(property as Plain, value, `/${key}`));
  }
  return toValidationIssues(errors, "body");
}
