/**
 * Serialized records, reused while a record is unchanged. A record's wire JSON depends on the
 * record and on what it embeds; every write touches the records that embed the changed one
 * (store/dataset.ts), so (id, changed_at) identifies a rendering. Bounded: the oldest entries go
 * first, so a full scan of 100,000s of records costs what rendering costs, and repeated pages
 * (clients polling the first page, benchmarks) cost a string join.
 */
import type { BaseRow } from "../store/rows.js";

const MAX_ENTRIES = 20_000;

export class JsonCache<T extends BaseRow> {
  readonly #entries = new Map<string, { at: number; json: string }>();

  constructor(private readonly render: (row: T) => unknown) {}

  json(row: T): string {
    const hit = this.#entries.get(row.id);
    if (hit && hit.at === row.changedAt) return hit.json;
    const json = JSON.stringify(this.render(row));
    if (hit) this.#entries.delete(row.id);
    else if (this.#entries.size >= MAX_ENTRIES) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(row.id, { at: row.changedAt, json });
    return json;
  }
}

/** The list envelope around already-serialized records. */
export function listEnvelope(next: string | null, parts: string[]): string {
  return `{"status":"success","data":{"next":${JSON.stringify(next)},"results":[${parts.join(",")}]}}`;
}
