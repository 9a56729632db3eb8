/**
 * The one naming rule between the recruiting API and its Drizzle tables: an API field is the
 * column's snake_case name, its Drizzle key the camelCase of it (`min_score` → `minScore`).
 */
export type ColumnOf<F extends string> = F extends `${infer H}_${infer T}` ? `${H}${Capitalize<ColumnOf<T>>}` : F;
/** The API field of a Drizzle key (`minScore` → `min_score`). */
export type FieldOf<K extends string> = K extends `${infer H}${infer T}`
  ? `${H extends Lowercase<H> ? H : `_${Lowercase<H>}`}${FieldOf<T>}`
  : K;
/** The API fields of a table's insert type. */
export type FieldsOf<Insert> = FieldOf<keyof Insert & string>;

export const columnOf = <F extends string>(field: F): ColumnOf<F> =>
  field.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()) as ColumnOf<F>;

/**
 * The columns for the writable fields present in `body` (absent ones are left alone). `writable`
 * names every field a body may set, so path-owned and read-only fields never reach a column;
 * declare it `satisfies Record<WritableKey & FieldsOf<Insert>, true>` so a field without its column
 * fails to compile. Timestamps given as ISO strings become Dates.
 */
export function toColumns<Insert>(
  body: object,
  writable: Record<string, true>,
  timestamps: ReadonlySet<string> = new Set(),
): Partial<Insert> {
  const given = body as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const field in writable) {
    const value = given[field];
    if (value === undefined) continue;
    out[columnOf(field)] = timestamps.has(field) && typeof value === "string" ? new Date(value) : value;
  }
  return out as Partial<Insert>;
}
