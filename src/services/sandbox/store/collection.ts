/**
 * An in-memory table with O(page) pagination. Rows live in creation order (`seq`): the bulk load's
 * in a compact store (columns.ts), the rows inserted or changed since as objects. A change log of
 * (changed_at, seq) pairs, appended on every change, serves `updated_after` from a binary search;
 * secondary indexes on immutable keys (an application's job) serve the common filters. Cursors
 * encode the source walked and the position reached, plus a fingerprint of the filters, so a
 * cursor sent with other filters is refused instead of silently skipping rows.
 */
import { createHash } from "node:crypto";
import { type BaseRows, ColumnRows, type ColumnSpec, ObjectRows } from "./columns.js";
import type { BaseRow } from "./rows.js";

export type PageRequest<T> = {
  cursor: string | undefined;
  pageSize: number;
  /** Epoch ms; rows with changed_at >= this. */
  updatedAfter?: number | undefined;
  includeDeleted: boolean;
  ids?: string[] | undefined;
  remoteIds?: string[] | undefined;
  /** Walk only the rows whose indexed key is one of `values`. */
  index?: { name: string; values: string[] } | undefined;
  /** Further filters, applied to each candidate row. */
  where?: ((row: T) => boolean) | undefined;
  /** Every filter value, for the cursor fingerprint. */
  fingerprint: string;
};

export type Page<T> = { rows: T[]; next: string | null };

export class InvalidCursorError extends Error {
  override name = "InvalidCursorError";
}

type Source = "seq" | "log" | "ids" | "idx";
type Cursor = { s: Source; p: number; f: string };

export class Collection<T extends BaseRow> {
  /** The bulk load's rows (seq < its length), as the seed made them: never written in place. */
  #base: BaseRows<T> = new ObjectRows<T>([]);
  /**
   * Rows inserted or changed since the bulk load, by seq: a changed row is this object from then
   * on. With the seed, they are the whole state (persistence.ts).
   */
  readonly #own = new Map<number, T>();
  #size = 0;
  /** Ids of the rows inserted after the bulk load (the bulk load's are found by its store). */
  readonly #insertedIds = new Map<string, number>();
  /** Built on first use: only the remote_ids filter needs it. */
  #byRemoteId: Map<string, number> | undefined;
  #logAt: number[] = [];
  #logSeq: number[] = [];
  #logBuilt = true;
  /** Built on first use from the field's values (the candidate index alone is ~90,000 keys). */
  readonly #indexes = new Map<string, { key: keyof T; map: Map<string, number[]> | undefined }>();

  /** With a column spec, the bulk load is kept in columns (columns.ts); without, as the row objects. */
  constructor(private readonly columns?: ColumnSpec<T>) {}

  /** Declares an index on a field that never changes for a row. */
  defineIndex(name: string, key: keyof T & string): this {
    this.#indexes.set(name, { key, map: undefined });
    return this;
  }

  get size(): number {
    return this.#size;
  }

  /** The row at `seq` (creation order), 0 <= seq < size. */
  at(seq: number): T {
    return this.#own.get(seq) ?? this.#base.at(seq);
  }

  /** One field of the row at `seq`, without making the row object. */
  #value<K extends keyof T>(seq: number, key: K): T[K] {
    const own = this.#own.get(seq);
    return own ? own[key] : this.#base.value(seq, key);
  }

  #seqOf(id: string): number | undefined {
    return this.#base.seqOf(id) ?? this.#insertedIds.get(id);
  }

  get(id: string): T | undefined {
    const seq = this.#seqOf(id);
    return seq === undefined ? undefined : this.at(seq);
  }

  byRemoteId(remoteId: string): T | undefined {
    const seq = this.#remoteIds().get(remoteId);
    return seq === undefined ? undefined : this.at(seq);
  }

  #remoteIds(): Map<string, number> {
    if (!this.#byRemoteId) {
      this.#byRemoteId = new Map();
      for (let seq = 0; seq < this.#size; seq++) this.#byRemoteId.set(this.#value(seq, "remoteId"), seq);
    }
    return this.#byRemoteId;
  }

  /** Every row in creation order. */
  *values(): IterableIterator<T> {
    for (let seq = 0; seq < this.#size; seq++) yield this.at(seq);
  }

  /** The first row (in creation order) whose `key` passes `test` and then the row `where`. */
  find<K extends keyof T>(key: K, test: (value: T[K]) => boolean, where: (row: T) => boolean = () => true): T | undefined {
    for (let seq = 0; seq < this.#size; seq++) {
      if (!test(this.#value(seq, key))) continue;
      const row = this.at(seq);
      if (where(row)) return row;
    }
    return undefined;
  }

  /** The rows inserted or changed since the bulk load (what persistence.ts saves). */
  changedRows(): T[] {
    return [...this.#own.values()];
  }

  /** Appends a row (its `seq` is assigned here) and records it in the change log. */
  insert(row: T): T {
    row.seq = this.#size++;
    this.#own.set(row.seq, row);
    this.#insertedIds.set(row.id, row.seq);
    this.#byRemoteId?.set(row.remoteId, row.seq);
    for (const { key, map } of this.#indexes.values()) if (map) addTo(map, row[key] as string, row.seq);
    this.#log(row);
    return row;
  }

  /**
   * Bulk load of generated rows: the change log is built sorted once instead of appended, since
   * seeded rows carry changed_at values from the past in any order.
   */
  load(rows: T[]): void {
    if (this.#size !== 0) throw new Error("load() must run before any insert");
    rows.forEach((row, seq) => {
      row.seq = seq;
    });
    this.#base = this.columns ? new ColumnRows(this.columns, rows) : new ObjectRows(rows);
    this.#size = rows.length;
    // The change log is built on the first updated_after query (see #ensureLog): plain list
    // pages never need it, and sorting 100,000s of seeded rows at start-up would cost seconds.
    this.#logBuilt = false;
  }

  /**
   * Records that `row` (an object this collection returned) changed at `at`, which the caller
   * guarantees is newer than its last change. From now on the collection returns this object.
   */
  touch(row: T, at: number): void {
    row.changedAt = at;
    this.#own.set(row.seq, row);
    this.#log(row);
  }

  /** Puts a saved row back: over the generated row with its id, or appended when it was inserted. */
  restore(saved: T): T {
    const seq = this.#seqOf(saved.id);
    if (seq === undefined) return this.insert(saved);
    const row = Object.assign(this.at(seq), saved, { seq });
    this.#own.set(seq, row);
    this.#log(row); // a no-op at start-up, where restores happen: the log is built on first use
    return row;
  }

  #log(row: T): void {
    if (!this.#logBuilt) return; // the lazy build will see the row's current changed_at
    this.#logAt.push(row.changedAt);
    this.#logSeq.push(row.seq);
  }

  /** Sorts every row by changed_at once; later changes append (the clock keeps them in order). */
  #ensureLog(): void {
    if (this.#logBuilt) return;
    const n = this.#size;
    const keys = new Float64Array(n);
    const order = new Uint32Array(n);
    for (let i = 0; i < n; i++) {
      keys[i] = this.#value(i, "changedAt");
      order[i] = i;
    }
    order.sort((a, b) => keys[a]! - keys[b]! || a - b);
    this.#logSeq = Array.from(order);
    this.#logAt = this.#logSeq.map((seq) => keys[seq]!);
    this.#logBuilt = true;
  }

  #index(name: string): Map<string, number[]> {
    const index = this.#indexes.get(name);
    if (!index) throw new Error(`no index ${name}`);
    if (!index.map) {
      index.map = new Map();
      for (let seq = 0; seq < this.#size; seq++) addTo(index.map, this.#value(seq, index.key) as string, seq);
    }
    return index.map;
  }

  page(req: PageRequest<T>): Page<T> {
    const fingerprint = createHash("sha1").update(req.fingerprint).digest("base64url").slice(0, 10);
    let cursor: Cursor | undefined;
    if (req.cursor !== undefined) {
      cursor = decodeCursor(req.cursor);
      if (cursor.f !== fingerprint) throw new InvalidCursorError("The cursor belongs to a query with other filters");
    }
    const { source, seqs } = this.#source(req);
    if (source === "log") this.#ensureLog();
    if (cursor && cursor.s !== source) throw new InvalidCursorError("The cursor belongs to another query");
    const length = seqs ? seqs.length : source === "log" ? this.#logAt.length : this.#size;
    let pos = cursor?.p ?? (source === "log" ? lowerBound(this.#logAt, req.updatedAfter ?? 0) : 0);
    const out: T[] = [];
    while (pos < length && out.length < req.pageSize) {
      const seq = seqs ? seqs[pos]! : source === "log" ? this.#logSeq[pos]! : pos;
      // A log entry is stale once its row changed again: the newer entry comes later.
      const stale = source === "log" && this.#value(seq, "changedAt") !== this.#logAt[pos];
      pos++;
      if (stale) continue;
      const row = this.at(seq);
      if (this.#matches(row, req)) out.push(row);
    }
    const next = pos < length ? encodeCursor({ s: source, p: pos, f: fingerprint }) : null;
    return { rows: out, next };
  }

  #matches(row: T, req: PageRequest<T>): boolean {
    if (!req.includeDeleted && row.deletedAt !== null) return false;
    if (req.updatedAfter !== undefined && row.changedAt < req.updatedAfter) return false;
    return req.where ? req.where(row) : true;
  }

  /** The smallest sequence of rows that can hold every match. */
  #source(req: PageRequest<T>): { source: Source; seqs?: number[] } {
    if (req.ids || req.remoteIds) {
      const remoteIds = req.remoteIds ? this.#remoteIds() : undefined;
      const found = [...(req.ids ?? []).map((id) => this.#seqOf(id)), ...(req.remoteIds ?? []).map((id) => remoteIds!.get(id))];
      const seqs = [...new Set(found.filter((s): s is number => s !== undefined))].sort((a, b) => a - b);
      // ids and remote_ids are ANDed: a row must match both lists when both are given.
      const both = req.ids && req.remoteIds;
      return {
        source: "ids",
        seqs: both
          ? seqs.filter((s) => req.ids!.includes(this.#value(s, "id")) && req.remoteIds!.includes(this.#value(s, "remoteId")))
          : seqs,
      };
    }
    if (req.index) {
      const index = this.#index(req.index.name);
      const lists = req.index.values.map((v) => index.get(v) ?? []);
      const seqs = lists.length === 1 ? lists[0]! : [...new Set(lists.flat())].sort((a, b) => a - b);
      return { source: "idx", seqs };
    }
    if (req.updatedAfter !== undefined) return { source: "log" };
    return { source: "seq" };
  }
}

function addTo(map: Map<string, number[]>, key: string, seq: number): void {
  const list = map.get(key);
  if (list) list.push(seq);
  else map.set(key, [seq]);
}

function lowerBound(sorted: number[], value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify(c)).toString("base64url");
}

function decodeCursor(raw: string): Cursor {
  try {
    const c = JSON.parse(Buffer.from(raw, "base64url").toString("utf8")) as Partial<Cursor>;
    if (
      typeof c === "object" &&
      c !== null &&
      ["seq", "log", "ids", "idx"].includes(c.s as string) &&
      Number.isInteger(c.p) &&
      (c.p as number) >= 0 &&
      typeof c.f === "string"
    ) {
      return c as Cursor;
    }
  } catch {
    // falls through to the error below
  }
  throw new InvalidCursorError("The cursor is not valid");
}
