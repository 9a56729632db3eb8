import { type Static, type TSchema, Type } from "@sinclair/typebox";

/**
 * Shapes shared by both APIs. Contracts import nothing from the servers, so the SDK can use them
 * (types only) in a browser.
 */
export const ValidationErrorSchema = Type.Object(
  {
    loc: Type.Array(Type.Union([Type.String(), Type.Integer()])),
    msg: Type.String(),
    type: Type.String(),
  },
  { $id: "ValidationError" },
);
export const HTTPValidationErrorSchema = Type.Object(
  { detail: Type.Array(ValidationErrorSchema) },
  { $id: "HTTPValidationError", description: "Request validation failed (FastAPI's shape)." },
);
export type HTTPValidationError = Static<typeof HTTPValidationErrorSchema>;

/** Every non-validation error body of the resource servers: `{ "detail": "…" }`. */
export const ErrorDetailSchema = Type.Object({ detail: Type.String() }, { description: "Error" });
export type ErrorDetail = Static<typeof ErrorDetailSchema>;

/**
 * "X or null", with null tried first: the apps' Ajv coerces types, and an `anyOf [X, null]` would
 * turn a JSON null into "" (or 0, or false) in the X branch before reaching the null one.
 */
export const Nullable = <T extends TSchema>(schema: T, opts: Record<string, unknown> = {}) => Type.Union([Type.Null(), schema], opts);

export const Uuid = (opts: Record<string, unknown> = {}) => Type.String({ format: "uuid", ...opts });
export const DateTime = (opts: Record<string, unknown> = {}) => Type.String({ format: "date-time", ...opts });
/**
 * A link a person may open (a recording, a transcript, a calendar, a result in the ATS): an
 * absolute `http` or `https` URL, nothing else (`javascript:`, `data:` and the like are refused
 * with 422, so no client ever renders one as a live link, and the write-back never sends one).
 */
export const HTTP_URL_PATTERN = "^[Hh][Tt][Tt][Pp][Ss]?://[^\\s/?#]+[^\\s]*$";
export const HttpUrl = (opts: Record<string, unknown> = {}) =>
  Type.String({ pattern: HTTP_URL_PATTERN, ...opts, description: `${String(opts["description"] ?? "")} An http or https URL.`.trim() });
export const Int32 = (opts: Record<string, unknown> = {}) => Type.Integer({ minimum: -2147483648, maximum: 2147483647, ...opts });

/**
 * `schema` with its own description, typed as the schema itself. A bare spread (`{ ...schema,
 * description }`) has a type with TypeBox's symbol keys, which declaration emit cannot name, and
 * the SDK's build (tsconfig.client.json) emits .d.ts for every contract it takes types from.
 */
export const withDescription = <T extends TSchema>(schema: T, description: string): T => ({ ...schema, description });

/** Error responses every protected route declares, for the OpenAPI document. */
export const protectedResponses = {
  401: withDescription(ErrorDetailSchema, "Missing, expired or invalid bearer token"),
  422: HTTPValidationErrorSchema,
} as const;

/** A closed set of strings, as a union of literals (`anyOf` of `const`s) typed as that union. */
export const Literals = <const T extends readonly string[]>(values: T) => Type.Union(values.map((v) => Type.Literal(v)));
