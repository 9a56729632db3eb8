/**
 * Serialized records, reused while a record is unchanged. A record's wire JSON depends on the
 * record and on what it embeds; every write touches the records that embed the changed one
 * (store/dataset.ts), so (id, changed_at) identifies a rendering. Bounded: the oldest entries go
 * first, and only a record rendered twice lately gets in, so a full scan of 100,000s of records
 * costs what rendering costs, and repeated pages (clients polling the first page, benchmarks)
 * cost a string join.
 *
 * A record is written by a serialiser compiled from its schema in src/contracts/upstream
 * (fast-json-stringify, as Fastify's response schemas do): exactly the contract's fields go out,
 * and the renderer is typed by the same schema.
 */
import type { Static, TSchema } from "@sinclair/typebox";
import fastJson from "fast-json-stringify";
import type { BaseRow } from "../store/rows.js";

/** One compiled serialiser per record schema, shared by every dataset's caches. */
const serializers = new WeakMap<TSchema, (value: unknown) => string>();

export function serializerOf<S extends TSchema>(schema: S): (value: Static<S>) => string {
  let serialize = serializers.get(schema);
  if (!serialize) {
    serialize = fastJson(plain(schema) as object);
    serializers.set(schema, serialize);
  }
  return serialize;
}

/**
 * Per list. A scan of the whole list (a full sync) reads each record once and gains nothing from a
 * cache; repeated pages (clients polling, the sandbox bench's pages) fit in a few thousand. 20,000
 * entries held ~30 MB of JSON at 100,000 applications.
 */
const MAX_ENTRIES = 2_000;
/**
 * A record is cached the second time it is rendered within the last SEEN renders (the "doorkeeper"
 * of TinyLFU). Caching every rendering made a scan's JSON outlive the young generation: paging
 * 100,000 applications and their candidates once grew the sandbox from 165 to 340 MB RSS (old
 * space filled with evicted entries between major GCs, --trace-gc), for no hit. Now a scan's
 * renderings die young, and a page fetched again soon is served from the cache from then on.
 */
const SEEN = 4_000;

export class JsonCache<T extends BaseRow, S extends TSchema = TSchema> {
  readonly #entries = new Map<string, { at: number; json: string }>();
  /** Rendered once recently: id → the changed_at rendered. */
  readonly #seen = new Map<string, number>();
  readonly #serialize: (value: Static<S>) => string;

  constructor(
    private readonly render: (row: T) => Static<S>,
    schema: S,
  ) {
    this.#serialize = serializerOf(schema);
  }

  json(row: T): string {
    const hit = this.#entries.get(row.id);
    if (hit && hit.at === row.changedAt) return hit.json;
    const json = this.#serialize(this.render(row));
    if (!hit && this.#seen.get(row.id) !== row.changedAt) {
      remember(this.#seen, row.id, row.changedAt, SEEN);
      return json;
    }
    this.#seen.delete(row.id);
    remember(this.#entries, row.id, { at: row.changedAt, json: flat(json) }, MAX_ENTRIES);
    return json;
  }
}

/** Sets `key` as the newest entry of `map`, dropping the oldest beyond `max`. */
function remember<V>(map: Map<string, V>, key: string, value: V, max: number): void {
  if (!map.delete(key) && map.size >= max) map.delete(map.keys().next().value!);
  map.set(key, value);
}

/**
 * fast-json-stringify builds its output by concatenation, which V8 keeps as a rope; a cached rope
 * would be walked again by every page that joins it (the sandbox bench: 35% fewer list pages per
 * second than with JSON.stringify's flat strings). Converting it to a number makes V8 flatten it
 * once, in place (the technique of the `flatstr` package).
 */
function flat(s: string): string {
  Number(s);
  return s;
}

/** The list envelope around already-serialized records. */
export function listEnvelope(next: string | null, parts: string[]): string {
  return `{"status":"success","data":{"next":${JSON.stringify(next)},"results":[${parts.join(",")}]}}`;
}

type Node = Record<string, unknown>;
const isNode = (v: unknown): v is Node => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The schema as fast-json-stringify writes it fastest, with the same meaning: `X or null` becomes
 * `type: [X, "null"]` and a union of string literals an `enum`, where an `anyOf` would make it try
 * each branch per value (2-4x slower than JSON.stringify on the records measured).
 */
function plain(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(plain);
  if (!isNode(schema)) return schema;
  const out: Node = {};
  for (const [key, value] of Object.entries(schema)) out[key] = plain(value);
  const branches = out["anyOf"];
  if (!Array.isArray(branches) || !branches.every(isNode)) return out;
  const { anyOf: _, ...rest } = out;
  const literals = branches.filter((b) => typeof b["const"] === "string");
  const nulls = branches.filter((b) => b["type"] === "null");
  const others = branches.filter((b) => !literals.includes(b) && !nulls.includes(b));
  if (literals.length && !others.length) {
    return {
      ...rest,
      type: nulls.length ? ["string", "null"] : "string",
      enum: [...literals.map((b) => b["const"]), ...(nulls.length ? [null] : [])],
    };
  }
  const [other] = others;
  if (nulls.length === 1 && others.length === 1 && other && typeof other["type"] === "string") {
    return { ...rest, ...other, type: [other["type"], "null"] };
  }
  return out;
}
