import { type Static, type TSchema, Type, type TUnion, type TNull, type TUnsafe } from "@sinclair/typebox";
import { ErrorDetailSchema, HTTPValidationErrorSchema, Nullable, withDescription } from "../common.js";

/**
 * Building blocks of the proxy's contracts (spec/integration-proxy.md). Query parameters the spec
 * types "X or null" are declared nullable, as the spec's OpenAPI declares them; an empty value
 * (`?cursor=`) arrives as null and is not forwarded.
 */

/** A closed set of strings as one JSON Schema `enum`, so a wrong value reads "Input should be 'a', 'b' or 'c'". */
export const StringEnum = <const T extends readonly string[]>(values: T, opts: Record<string, unknown> = {}): TUnsafe<T[number]> =>
  Type.Unsafe<T[number]>({ type: "string", enum: [...values], ...opts });

/**
 * "X or null". A plain string, number or boolean becomes `type: [X, "null"]` rather than
 * `anyOf: [X, null]`: the apps' Ajv coerces types, and inside an anyOf it would turn a JSON null
 * into "" (or 0, or false) in the first branch before the null branch is tried. Enums and objects
 * cannot be coerced from null, so they keep the anyOf form.
 */
export const NullableOf = <T extends TSchema>(schema: T, opts: Record<string, unknown> = {}): TUnion<[TNull, T]> => {
  const { type, enum: values } = schema as { type?: unknown; enum?: unknown };
  if (typeof type === "string" && type !== "object" && type !== "array" && values === undefined) {
    return Type.Unsafe<Static<T> | null>({ ...schema, ...opts, type: [type, "null"] }) as unknown as TUnion<[TNull, T]>;
  }
  return Nullable(schema, opts);
};

/** Optional and nullable: the spec's "X or null" parameters and fields. */
export const OptionalNullable = <T extends TSchema>(schema: T, opts: Record<string, unknown> = {}) =>
  Type.Optional(NullableOf(schema, opts));

export const IntegrationIdQuery = Type.String({ description: "Id of the integration (e.g. `greenhouse:8d1hpPsbjxUkoCoa1veLZGe5`)." });

/** The only thing an integration-scoped operation without other parameters takes. */
export const IntegrationScopedQuerySchema = Type.Object({ integration_id: IntegrationIdQuery });
export type IntegrationScopedQuery = Static<typeof IntegrationScopedQuerySchema>;

export const PAGE_SIZE_MAX = 250;
export const INTEGRATION_FIELDS_PAGE_SIZE_MAX = 2000;

/** `page_size`: the upstream accepts 1..max, so 0 and negatives are refused here rather than upstream. */
export const PageSize = (maximum: number) =>
  OptionalNullable(Type.Integer({ minimum: 1, maximum }), { description: `Results per page, max ${maximum}.` });
export const Cursor = OptionalNullable(Type.String(), { description: "Pagination cursor (`data.next` of the previous page)." });

/** Every success body is the upstream's JSON object, passed through unchanged (envelope and `warnings` included). */
export const UpstreamBodySchema = Type.Object(
  {},
  { additionalProperties: true, description: "The upstream's JSON body, passed through unchanged." },
);

/** Error responses every proxied operation can give, for the OpenAPI document. */
export const proxyErrorResponses = {
  401: withDescription(ErrorDetailSchema, "Missing, expired or invalid bearer token"),
  403: withDescription(ErrorDetailSchema, "The token carries no organisation, or the request names another organisation"),
  404: withDescription(UpstreamBodySchema, "Unknown integration, or one of another organisation; or the upstream's 404"),
  422: HTTPValidationErrorSchema,
  429: withDescription(UpstreamBodySchema, "The upstream's rate limit; `Retry-After` says when to try again"),
  502: withDescription(ErrorDetailSchema, "The upstream failed, is unreachable, or rejected the service's API key"),
  504: withDescription(ErrorDetailSchema, "The upstream did not answer in time"),
} as const;
