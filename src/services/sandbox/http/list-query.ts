/**
 * The standard list query of the upstream (§2d) turned into a collection page: comma-separated
 * filters ORed within and ANDed across, `updated_after`, `include_deleted`, cursors, and the
 * "unsupported filter" rule (with ignore_unsupported_filters=false, a filter the tool does not
 * support makes the result empty; with true it is ignored).
 */
import type { UpstreamPage } from "../../../contracts/upstream/index.js";
import { inputInvalid } from "../errors.js";
import { InvalidCursorError, type Collection, type Page } from "../store/collection.js";
import type { BaseRow } from "../store/rows.js";

export type Filter<T> = {
  /** A collection index that holds exactly the rows matching these values. */
  index?: string;
  match: (values: Set<string>) => (row: T) => boolean;
};
export type FilterSpec<T> = { filters: Record<string, Filter<T>>; unsupported?: string[] };

export type RawQuery = Record<string, unknown>;

/** `a,b` (or a repeated parameter) → ["a","b"]; empty entries dropped. */
export function listParam(raw: unknown): string[] | undefined {
  if (raw === undefined || raw === null) return undefined;
  const joined = Array.isArray(raw) ? raw.map(String).join(",") : String(raw);
  return joined
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

export function dateParam(raw: unknown, name: string): number | undefined {
  if (raw === undefined) return undefined;
  const ms = Date.parse(String(raw));
  if (Number.isNaN(ms) || !/T\d{2}:\d{2}/.test(String(raw))) throw inputInvalid(`query.${name}: must be an ISO-8601 date-time`);
  return ms;
}

export function listPage<T extends BaseRow, R>(
  collection: Collection<T>,
  query: RawQuery,
  spec: FilterSpec<T>,
  render: (row: T) => R,
  defaultPageSize = 100,
): UpstreamPage<R> {
  const page = pageRows(collection, query, spec, defaultPageSize);
  return { next: page.next, results: page.rows.map(render) };
}

/** The page's rows and next cursor (for callers that serialize the rows themselves). */
export function pageRows<T extends BaseRow>(
  collection: Collection<T>,
  query: RawQuery,
  spec: FilterSpec<T>,
  defaultPageSize = 100,
): Page<T> {
  const ignoreUnsupported = query["ignore_unsupported_filters"] === "true";
  if (!ignoreUnsupported && (spec.unsupported ?? []).some((name) => query[name] !== undefined)) {
    return { next: null, rows: [] };
  }
  const predicates: ((row: T) => boolean)[] = [];
  let index: { name: string; values: string[] } | undefined;
  for (const [name, filter] of Object.entries(spec.filters)) {
    const values = listParam(query[name]);
    if (!values) continue;
    if (filter.index && !index) index = { name: filter.index, values };
    else predicates.push(filter.match(new Set(values)));
  }
  const fingerprint = JSON.stringify(
    Object.keys(query)
      .filter((k) => k !== "cursor" && k !== "page_size")
      .sort()
      .map((k) => [k, query[k]]),
  );
  try {
    const page = collection.page({
      cursor: query["cursor"] as string | undefined,
      pageSize: (query["page_size"] as number | undefined) ?? defaultPageSize,
      updatedAfter: dateParam(query["updated_after"], "updated_after"),
      includeDeleted: query["include_deleted"] === "true",
      ids: listParam(query["ids"]),
      remoteIds: listParam(query["remote_ids"]),
      index,
      where: predicates.length === 0 ? undefined : predicates.length === 1 ? predicates[0] : (row) => predicates.every((p) => p(row)),
      fingerprint,
    });
    return page;
  } catch (err) {
    if (err instanceof InvalidCursorError) throw inputInvalid(`query.cursor: ${err.message}`);
    throw err;
  }
}
