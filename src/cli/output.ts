import type { Writable } from "node:stream";

export type Column<T> = { header: string; value: (row: T) => unknown; maxWidth?: number };

const DEFAULT_MAX_WIDTH = 48;

/** A cell as text: null/undefined as "-", arrays comma-joined, objects as compact JSON. */
export function cell(value: unknown): string {
  if (value === null || value === undefined || value === "") return "-";
  if (Array.isArray(value)) return value.length ? value.map(cell).join(", ") : "-";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value).replace(/\s+/g, " ");
}

function fit(text: string, width: number): string {
  return text.length > width ? `${text.slice(0, width - 1)}…` : text;
}

/** A plain-text table: header, dashes, one line per row; long cells are cut with an ellipsis. */
export function renderTable<T>(columns: Column<T>[], rows: T[]): string {
  if (rows.length === 0) return "(none)";
  const cells = rows.map((row) => columns.map((c) => fit(cell(c.value(row)), c.maxWidth ?? DEFAULT_MAX_WIDTH)));
  const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((r) => r[i]!.length)));
  const line = (parts: string[]) => parts.map((p, i) => p.padEnd(widths[i]!)).join("  ").trimEnd();
  return [line(columns.map((c) => c.header)), line(widths.map((w) => "-".repeat(w))), ...cells.map(line)].join("\n");
}

/** One record as aligned `label  value` lines. */
export function renderRecord(fields: [label: string, value: unknown][]): string {
  const width = Math.max(...fields.map(([label]) => label.length));
  return fields.map(([label, value]) => `${label.padEnd(width)}  ${cell(value)}`).join("\n");
}

/**
 * Where results go: JSON (exactly the API's answer, for scripts) with `--json`, otherwise the
 * human rendering. Notes meant for people (progress, confirmations) go to stderr so stdout stays
 * parseable either way.
 */
export class Output {
  constructor(
    private readonly stdout: Writable,
    private readonly stderr: Writable,
    readonly json: boolean,
  ) {}

  /** Prints `value` as JSON, or `human()` as text. */
  result(value: unknown, human: () => string): void {
    this.stdout.write(this.json ? `${JSON.stringify(value, null, 2)}\n` : `${human()}\n`);
  }

  table<T>(rows: T[], columns: Column<T>[], json: unknown = rows): void {
    this.result(json, () => renderTable(columns, rows));
  }

  record(value: unknown, fields: [string, unknown][]): void {
    this.result(value, () => renderRecord(fields));
  }

  /** A short human message (not part of the result). */
  note(message: string): void {
    this.stderr.write(`${message}\n`);
  }
}
