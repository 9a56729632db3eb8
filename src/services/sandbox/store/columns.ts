/**
 * Where a collection keeps the rows of its bulk load (the generated data): as row objects, or as
 * columns that make a fresh row object per access.
 *
 * Why columns: a heap snapshot of 100,000 generated applications (with their ~92,000 candidates,
 * interviews and offers) held 152 MB, mostly per-row overhead rather than data: 263,000 row
 * objects (39 MB), 814,000 epoch-ms timestamps boxed as heap numbers (13 MB; they do not fit a
 * small integer), 563,000 id arrays, most of them empty (32 MB with their elements), emails left
 * as concatenation ropes (16 MB; data/generate.ts now joins them flat) and the id maps. In
 * columns a timestamp is 8 bytes of a Float64Array (1 when it repeats another of the row's times),
 * a numeric remote id 4 bytes of an Int32Array, a string one pointer (to a string the vocabulary
 * or the referenced row already holds), a list of one id the id alone: 53 MB of heap in all.
 * Only the rows a page walks are decoded; paging and rendering every application and candidate
 * costs ~20% more CPU in process than with row objects (~3% of a page served over HTTP).
 *
 * Bulk-loaded rows never change in place: a write goes to the decoded copy, which the collection
 * then keeps as the row (collection.ts), so the columns stay what the seed produced.
 */
import type { BaseRow } from "./rows.js";

/** The kinds of field a column can hold. */
export type ColumnKind =
  /** Epoch ms or null (NaN in the column). */
  | "time"
  | "bool"
  /** A string of decimal digits without leading zeros, below 2^31 (generated remote ids). */
  | "digits"
  /** A list of ids: none, one (the id alone) or a frozen array; most lists hold at most one. */
  | "ids"
  /** Any other value (strings, nulls), by reference. */
  | "ref";

/**
 * A time that is null or, for most rows, equal to another time field of the row (an application's
 * changed_at, rejected_at and remote_deleted_at are its updated_at when set): 1 byte a row, where
 * a time column takes 8; the rows where it differs are kept aside.
 */
export type SameTime<T> = { sameAs: keyof T & string };

export type ColumnSpec<T extends BaseRow> = { readonly [K in Exclude<keyof T, "seq">]-?: ColumnKind | SameTime<T> };

/** The storage of the bulk-loaded rows, by position (seq) in the collection. */
export interface BaseRows<T extends BaseRow> {
  readonly length: number;
  /** The row at `seq`: the stored object, or a fresh one decoded from the columns. */
  at(seq: number): T;
  /** One field of the row at `seq`, without decoding the row. */
  value<K extends keyof T>(seq: number, key: K): T[K];
  /** The seq of the row with this id, or undefined. */
  seqOf(id: string): number | undefined;
}

/** Rows kept as they are: for the small collections (jobs, stages, users…), where objects cost little. */
export class ObjectRows<T extends BaseRow> implements BaseRows<T> {
  readonly #byId: Map<string, number>;

  constructor(private readonly rows: T[]) {
    this.#byId = new Map(rows.map((row, seq) => [row.id, seq]));
  }

  seqOf(id: string): number | undefined {
    return this.#byId.get(id);
  }

  get length(): number {
    return this.rows.length;
  }

  at(seq: number): T {
    return this.rows[seq]!;
  }

  value<K extends keyof T>(seq: number, key: K): T[K] {
    return this.rows[seq]![key];
  }
}

const EMPTY: readonly never[] = Object.freeze([]);

type Column =
  | { key: string; kind: "time"; data: Float64Array }
  | { key: string; kind: "bool"; data: Uint8Array }
  | { key: string; kind: "digits"; data: Int32Array }
  | { key: string; kind: "ids"; data: (string | readonly string[] | undefined)[] }
  | { key: string; kind: "ref"; data: unknown[] }
  | { key: string; kind: "same"; sameAs: string; data: Uint8Array; other: Map<number, number> };

/** The flags of a "same" column. */
const NULL = 0;
const SAME = 1;
const OTHER = 2;

export class ColumnRows<T extends BaseRow> implements BaseRows<T> {
  readonly length: number;
  readonly #columns: Column[];
  readonly #byKey = new Map<string, Column>();
  /**
   * id → seq, an open-addressing hash table of seq + 1 (0: empty) over the id column: 8 to 16
   * bytes a row, where a Map took ~37 (its table doubles past 65,536 entries: heap 53 → 61 MB with
   * the four Maps at 100,000 applications). A binary search over the seqs sorted by id was smaller
   * still but its ~17 string comparisons a lookup cost 5% of the CPU of paging and rendering every
   * record; hashing an id's characters costs about what a Map lookup does.
   */
  readonly #slots: Int32Array;
  readonly #ids: string[];
  readonly #decodeRow: (seq: number) => T;

  constructor(spec: ColumnSpec<T>, rows: readonly T[]) {
    const n = rows.length;
    this.length = n;
    this.#columns = Object.entries(spec as Record<string, ColumnKind | SameTime<T>>).map(([key, kind]): Column => {
      if (typeof kind === "object") return { key, kind: "same", sameAs: kind.sameAs, data: new Uint8Array(n), other: new Map() };
      switch (kind) {
        case "time":
          return { key, kind, data: new Float64Array(n) };
        case "bool":
          return { key, kind, data: new Uint8Array(n) };
        case "digits":
          return { key, kind, data: new Int32Array(n) };
        case "ids":
          return { key, kind, data: new Array<string | readonly string[] | undefined>(n) };
        default:
          return { key, kind: "ref", data: new Array<unknown>(n) };
      }
    });
    for (const column of this.#columns) this.#byKey.set(column.key, column);
    for (let seq = 0; seq < n; seq++) {
      const row = rows[seq] as unknown as Record<string, unknown>;
      for (const column of this.#columns) encode(column, seq, row[column.key], row);
    }
    const ids = this.#byKey.get("id");
    if (ids?.kind !== "ref") throw new Error("a column store needs its ids in a ref column");
    this.#ids = ids.data as string[];
    this.#slots = new Int32Array(2 ** Math.ceil(Math.log2(2 * n + 2)));
    const mask = this.#slots.length - 1;
    for (let seq = 0; seq < n; seq++) {
      let slot = hash(this.#ids[seq]!) & mask;
      while (this.#slots[slot] !== 0) slot = (slot + 1) & mask;
      this.#slots[slot] = seq + 1;
    }
    this.#decodeRow = compileDecoder<T>(this.#columns, (column, seq) => this.#decode(column, seq));
  }

  seqOf(id: string): number | undefined {
    const mask = this.#slots.length - 1;
    for (let slot = hash(id) & mask; ; slot = (slot + 1) & mask) {
      const entry = this.#slots[slot]!;
      if (entry === 0) return undefined;
      if (this.#ids[entry - 1] === id) return entry - 1;
    }
  }

  at(seq: number): T {
    return this.#decodeRow(seq);
  }

  value<K extends keyof T>(seq: number, key: K): T[K] {
    if (key === "seq") return seq as T[K];
    return this.#decode(this.#byKey.get(key as string)!, seq) as T[K];
  }

  #decode(column: Column, seq: number): unknown {
    if (column.kind !== "same") return decode(column, seq);
    const flag = column.data[seq];
    return flag === NULL ? null : flag === SAME ? this.#decode(this.#byKey.get(column.sameAs)!, seq) : column.other.get(seq)!;
  }
}

function encode(column: Column, seq: number, value: unknown, row: Record<string, unknown>): void {
  switch (column.kind) {
    case "same":
      if (value === null) column.data[seq] = NULL;
      else if (value === row[column.sameAs]) column.data[seq] = SAME;
      else {
        column.data[seq] = OTHER;
        column.other.set(seq, value as number);
      }
      return;
    case "time":
      column.data[seq] = value === null ? Number.NaN : (value as number);
      return;
    case "bool":
      column.data[seq] = value ? 1 : 0;
      return;
    case "digits": {
      const n = Number(value);
      if (typeof value !== "string" || !/^(0|[1-9]\d{0,9})$/.test(value) || n > 0x7fffffff)
        throw new Error(`column ${column.key}: ${JSON.stringify(value)} is not a numeric id`);
      column.data[seq] = n;
      return;
    }
    case "ids": {
      // An array costs ~48 bytes before its ids: most applications have no interview or offer,
      // most candidates no tag and one application. A longer list is kept exactly sized and
      // frozen, shared with the rows decoded from it (a write replaces a list, never pushes).
      const ids = value as readonly string[];
      column.data[seq] = ids.length === 0 ? undefined : ids.length === 1 ? ids[0] : Object.freeze(ids.slice());
      return;
    }
    case "ref":
      column.data[seq] = value;
  }
}

function decode(column: Exclude<Column, { kind: "same" }>, seq: number): unknown {
  switch (column.kind) {
    case "time": {
      const t = column.data[seq]!;
      return Number.isNaN(t) ? null : t;
    }
    case "bool":
      return column.data[seq] === 1;
    case "digits":
      return String(column.data[seq]);
    case "ids":
      return idList(column.data[seq]);
    case "ref":
      return column.data[seq];
  }
}

/**
 * The decoder of a row, compiled from the columns as fast-json-stringify compiles a serialiser:
 * one object literal, so every decoded row gets the same shape at once. A loop storing each field
 * by name took twice the time of the renderer that then reads the row (--cpu-prof of paging and
 * rendering every application and candidate); the literal costs about what a row object did
 * before columns. The code is made from the column kinds and indexes only, never from data.
 */
function compileDecoder<T>(columns: Column[], fallback: (column: Column, seq: number) => unknown): (seq: number) => T {
  const fields = columns.map((column, i) => {
    const at = `c${i}[seq]`;
    const value = {
      time: `(${at} === ${at} ? ${at} : null)`,
      bool: `${at} === 1`,
      digits: `"" + ${at}`,
      ids: `idList(${at})`,
      ref: at,
      same: `fallback(columns[${i}], seq)`,
    }[column.kind];
    return `${JSON.stringify(column.key)}: ${value}`;
  });
  const locals = columns.map((_, i) => `const c${i} = columns[${i}].data;`).join("\n");
  return new Function("columns", "idList", "fallback", `${locals}\nreturn (seq) => ({ seq, ${fields.join(", ")} });`)(
    columns,
    idList,
    fallback,
  ) as (seq: number) => T;
}

/** FNV-1a over the UTF-16 code units: ids are short, and generated ones random. */
function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

function idList(ids: string | readonly string[] | undefined): readonly string[] {
  return ids === undefined ? EMPTY : typeof ids === "string" ? [ids] : ids;
}
