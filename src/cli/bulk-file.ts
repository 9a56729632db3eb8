import { readFile } from "node:fs/promises";
import { extname } from "node:path";
import { CANDIDATE_BULK_MAX, CandidateBulkUpdateItemSchema, type CandidateBulkUpdate } from "../contracts/recruiting/candidates.js";
import { CliError, EXIT } from "./cli-errors.js";
import { csvRecords } from "./csv.js";
import { fieldConverter } from "./schema-options.js";

export type BulkFormat = "csv" | "json";

/**
 * Reads a bulk candidate update: a JSON array of `{id, …fields}` (or `{"items": [...]}`), or a CSV
 * whose header names the fields (`id` required). CSV cells are converted by the field types of the
 * API's own bulk-update schema; an empty cell leaves the field unchanged (for nullable fields it
 * clears it only when it says `null`).
 */
export async function readBulkFile(file: string, format?: BulkFormat): Promise<CandidateBulkUpdate> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    throw new CliError(`Cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, EXIT.USAGE);
  }
  const kind = format ?? (extname(file).toLowerCase() === ".csv" ? "csv" : "json");
  const items = kind === "csv" ? fromCsv(text) : fromJson(text, file);
  if (items.length === 0) throw new CliError(`${file}: no candidates to update`, EXIT.USAGE);
  if (items.length > CANDIDATE_BULK_MAX) {
    // One request is one transaction; splitting the file would give up "all or nothing".
    throw new CliError(`${file}: ${items.length} candidates; one bulk update takes at most ${CANDIDATE_BULK_MAX}`, EXIT.USAGE);
  }
  return items;
}

function fromJson(text: string, file: string): CandidateBulkUpdate {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new CliError(`${file}: not valid JSON (${(err as Error).message})`, EXIT.USAGE);
  }
  const items = Array.isArray(parsed) ? parsed : (parsed as { items?: unknown } | null)?.items;
  if (!Array.isArray(items) || !items.every((i) => i && typeof i === "object" && typeof (i as { id?: unknown }).id === "string")) {
    throw new CliError(`${file}: expected an array of objects, each with an "id"`, EXIT.USAGE);
  }
  return items as CandidateBulkUpdate;
}

function fromCsv(text: string): CandidateBulkUpdate {
  const { header, records } = csvRecords(text);
  const fields = fieldConverter(CandidateBulkUpdateItemSchema);
  const unknown = header.filter((h) => !fields.names.includes(h));
  if (unknown.length) throw new CliError(`CSV: unknown column(s) ${unknown.join(", ")}; known: ${fields.names.join(", ")}`, EXIT.USAGE);
  if (!header.includes("id")) throw new CliError("CSV: an id column is needed", EXIT.USAGE);
  return records.map(({ line, values }) => {
    const item: Record<string, unknown> = {};
    for (const [name, raw] of Object.entries(values)) {
      if (name === "id") item["id"] = raw.trim();
      else if (raw.trim() !== "") item[name] = fields.convert(name, raw, `CSV record ${line}, column ${name}`);
    }
    return item as CandidateBulkUpdate[number];
  });
}
