import { type Static, type TSchema, type TUnsafe, Type } from "@sinclair/typebox";
import { ErrorDetailSchema, HTTPValidationErrorSchema, withDescription } from "../common.js";

/**
 * Building blocks of the recruiting contracts.
 *
 * Nullable fields are one JSON Schema `type: [T, "null"]` rather than `anyOf [T, null]`: the
 * servers' Ajv runs with type coercion, which turns `null` into `""`/`0`/`false` inside the first
 * branch of a union, so `{"department": null}` would be stored as an empty string.
 */
export const OrNull = <T extends TSchema>(schema: T, opts: Record<string, unknown> = {}): TUnsafe<Static<T> | null> => {
  const plain = JSON.parse(JSON.stringify(schema)) as Record<string, unknown>; // drops TypeBox's symbols
  return Type.Unsafe<Static<T> | null>({ ...plain, ...opts, type: [plain["type"], "null"] });
};

/** A closed string set, as one `enum` (a union of literals would report one error per literal). */
export const StringEnum = <T extends readonly string[]>(values: T, opts: Record<string, unknown> = {}) =>
  Type.Unsafe<T[number]>({ type: "string", enum: [...values], ...opts });

/** Fields the server owns: accepted in request bodies and ignored (as FastAPI treats read-only fields). */
export const readOnly = <T extends TSchema>(schema: T) =>
  Type.Optional({ ...schema, readOnly: true, description: `${schema.description ?? ""} Read-only: ignored when sent.`.trim() });

/** Error responses the recruiting routes declare, for the OpenAPI document and the SDK's types. */
export const errorResponses = {
  401: withDescription(ErrorDetailSchema, "Missing, expired or invalid bearer token"),
  403: withDescription(ErrorDetailSchema, "The token's org_id does not match the path's org_id, or it has none"),
  404: withDescription(ErrorDetailSchema, "No such record in this organization"),
  409: withDescription(
    ErrorDetailSchema,
    "Conflict: an email or upstream link another record already has, a forbidden interview transition, or a change to a final (graded or cancelled) interview",
  ),
  422: HTTPValidationErrorSchema,
} as const;

/** The response map of a route: its 200 schema plus the named error statuses. */
export function responses<S extends TSchema, C extends keyof typeof errorResponses>(ok: S, ...codes: C[]) {
  const out: Record<number, TSchema> = { 200: ok };
  for (const code of codes) out[code] = errorResponses[code];
  return out as { 200: S } & Pick<typeof errorResponses, C>;
}

/**
 * The headers of an idempotent create (draft-ietf-httpapi-idempotency-key-header): a key the
 * client makes once per logical create (a UUID, say) and sends again with every retry of it.
 */
export const IdempotencyKeyHeadersSchema = Type.Object({
  "idempotency-key": Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      description:
        'Makes the create safe to retry: the same key with the same body answers the first answer again (same status and body, nothing created twice), for 24 hours; the same key with another body answers 422; while the first request with the key is still running, 409 with Retry-After. Keys are per organization and caller. The draft\'s quoted form (`"…"`) and a bare value name the same key.',
    }),
  ),
});
