/**
 * An in-memory table with O(page) pagination. Rows live in creation order (`seq`); a change log of
 * (changed_at, seq) pairs, appended on every change, serves `updated_after` from a binary search;
 * secondary indexes on immutable keys (an application's job) serve the common filters. Cursors
 * encode the source walked and the position reached, plus a fingerprint of the filters, so a
 * cursor sent with other filters is refused instead of silently skipping rows.
 */
import { createHash } from "node:crypto";
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
  readonly rows: T[] = [];
  readonly #byId = new Map<string, T>();
  /** Built on first use: only the remote_ids filter needs it. */
  #byRemoteId: Map<string, T> | undefined;
  #logAt: number[] = [];
  #logSeq: number[] = [];
  #logBuilt = true;
  readonly #indexes = new Map<string, { key: (row: T) => string; map: Map<string, number[]> }>();
  /** Rows inserted or changed since the bulk load: with the seed, they are the whole state (persistence.ts). */
  readonly changed = new Set<T>();

  /** Declares an index on a key that never changes for a row (must be called before inserts). */
  defineIndex(name: string, key: (row: T) => string): this {
    this.#indexes.set(name, { key, map: new Map() });
    return this;
  }

  get size(): number {
    return this.rows.length;
  }

  get(id: string): T | undefined {
    return this.#byId.get(id);
  }

  byRemoteId(remoteId: string): T | undefined {
    this.#byRemoteId ??= new Map(this.rows.map((r) => [r.remoteId, r]));
    return this.#byRemoteId.get(remoteId);
  }

  /** Appends a row (its `seq` is assigned here) and records it in the change log. */
  insert(row: T): T {
    row.seq = this.rows.length;
    this.rows.push(row);
    this.#byId.set(row.id, row);
    this.#byRemoteId?.set(row.remoteId, row);
    for (const { key, map } of this.#indexes.values()) {
      const k = key(row);
      const list = map.get(k);
      if (list) list.push(row.seq);
      else map.set(k, [row.seq]);
    }
    this.#log(row);
    this.changed.add(row);
    return row;
  }

  /**
   * Bulk load of generated rows: the change log is built sorted once instead of appended, since
   * seeded rows carry changed_at values from the past in any order.
   */
  load(rows: T[]): void {
    if (this.rows.length !== 0) throw new Error("load() must run before any insert");
    const indexes = [...this.#indexes.values()];
    for (const row of rows) {
      row.seq = this.rows.length;
      this.rows.push(row);
      this.#byId.set(row.id, row);
      for (const { key, map } of indexes) {
        const k = key(row);
        const list = map.get(k);
        if (list) list.push(row.seq);
        else map.set(k, [row.seq]);
      }
    }
    // The change log is built on the first updated_after query (see #ensureLog): plain list
    // pages never need it, and sorting 100,000s of seeded rows at start-up would cost seconds.
    this.#logBuilt = false;
  }

  /** Records that `row` changed at `at` (which the caller guarantees is newer than its last change). */
  touch(row: T, at: number): void {
    row.changedAt = at;
    this.#log(row);
    this.changed.add(row);
  }

  #log(row: T): void {
    if (!this.#logBuilt) return; // the lazy build will see the row's current changed_at
    this.#logAt.push(row.changedAt);
    this.#logSeq.push(row.seq);
  }

  /** Sorts every row by changed_at once; later changes append (the clock keeps them in order). */
  #ensureLog(): void {
    if (this.#logBuilt) return;
    const n = this.rows.length;
    const keys = new Float64Array(n);
    const order = new Uint32Array(n);
    for (let i = 0; i < n; i++) {
      keys[i] = this.rows[i]!.changedAt;
      order[i] = i;
    }
    order.sort((a, b) => keys[a]! - keys[b]! || a - b);
    this.#logSeq = Array.from(order);
    this.#logAt = this.#logSeq.map((seq) => keys[seq]!);
    this.#logBuilt = true;
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
    const length = seqs ? seqs.length : source === "log" ? this.#logAt.length : this.rows.length;
    let pos = cursor?.p ?? (source === "log" ? lowerBound(this.#logAt, req.updatedAfter ?? 0) : 0);
    const out: T[] = [];
    while (pos < length && out.length < req.pageSize) {
      const seq = seqs ? seqs[pos]! : source === "log" ? this.#logSeq[pos]! : pos;
      const row = this.rows[seq]!;
      // A log entry is stale once its row changed again: the newer entry comes later.
      const stale = source === "log" && row.changedAt !== this.#logAt[pos];
      pos++;
      if (stale || !this.#matches(row, req)) continue;
      out.push(row);
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
      const rows = [...(req.ids ?? []).map((id) => this.#byId.get(id)), ...(req.remoteIds ?? []).map((id) => this.byRemoteId(id))];
      const seqs = [...new Set(rows.filter((r): r is T => r !== undefined).map((r) => r.seq))].sort((a, b) => a - b);
      // ids and remote_ids are ANDed: a row must match both lists when both are given.
      const both = req.ids && req.remoteIds;
      return {
        source: "ids",
        seqs: both ? seqs.filter((s) => req.ids!.includes(this.rows[s]!.id) && req.remoteIds!.includes(this.rows[s]!.remoteId)) : seqs,
      };
    }
    if (req.index) {
      const index = this.#indexes.get(req.index.name);
      if (!index) throw new Error(`no index ${req.index.name}`);
      const lists = req.index.values.map((v) => index.map.get(v) ?? []);
      const seqs = lists.length === 1 ? lists[0]! : [...new Set(lists.flat())].sort((a, b) => a - b);
      return { source: "idx", seqs };
    }
    if (req.updatedAfter !== undefined) return { source: "log" };
    return { source: "seq" };
  }
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
