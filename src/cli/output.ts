import type { Writable } from "node:stream";

export type Column<T> = {
  header: string;
  value: (row: T) => unknown;
  maxWidth?: number;
  /** May be left out when the terminal is too narrow for every column; higher goes first. */
  drop?: number;
  /**
   * An id, to be copied into the next command: never cut, never left out. A column headed `ID` is
   * one without saying so.
   */
  id?: boolean;
  /**
   * A text column that is no longer worth reading when cut below this many characters: a table
   * that would cut it further is printed one record per block instead.
   */
  min?: number;
};

const isId = <T>(c: Column<T>): boolean => c.id === true || c.header === "ID";

const DEFAULT_MAX_WIDTH = 48;

/** A cell as text: null/undefined as "-", arrays comma-joined, objects as compact JSON. */
export function cell(value: unknown): string {
  if (value === null || value === undefined || value === "") return "-";
  if (Array.isArray(value)) return value.length ? value.map(cell).join(", ") : "-";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value).replace(/\s+/g, " ");
}

/** `text` cut to `width` characters, an ellipsis marking the cut. */
export function fit(text: string, width: number): string {
  if (width <= 0) return "";
  return text.length > width ? `${text.slice(0, width - 1)}…` : text;
}

const GAP = 2;
/** A column is never cut below this (or its header, when shorter). */
const MIN_COLUMN = 6;

/**
 * Column widths that fit `total` characters: the widest column gives up a character at a time
 * (down to its header or MIN_COLUMN; an id column not at all) until the line fits, so short columns
 * (states, counts) stay whole and long free text is what gets cut.
 */
function fitWidths(widths: number[], ids: boolean[], total: number): number[] {
  const out = [...widths];
  const floor = out.map((w, i) => (ids[i] ? w : Math.min(w, MIN_COLUMN)));
  let excess = out.reduce((a, b) => a + b, 0) + GAP * (out.length - 1) - total;
  while (excess > 0) {
    let widest = -1;
    for (let i = 0; i < out.length; i++) if (out[i]! > floor[i]! && (widest === -1 || out[i]! > out[widest]!)) widest = i;
    if (widest === -1) break; // every column at its floor
    out[widest]!--;
    excess--;
  }
  return out;
}

type Kept<T> = { c: Column<T>; w: number };
const lineWidth = <T>(kept: Kept<T>[], width: (k: Kept<T>) => number) => kept.reduce((sum, k) => sum + width(k) + GAP, -GAP);

/**
 * The columns that fit `width`: droppable columns leave (highest `drop` first) while the whole cells
 * would not fit; then, while even the cut cells would not (ids whole, the rest at their floor), the
 * rightmost column that is not an id leaves too, so ids always come out whole.
 */
function keepColumns<T>(columns: Column<T>[], natural: number[], width: number): Column<T>[] {
  let kept: Kept<T>[] = columns.map((c, i) => ({ c, w: natural[i]! }));
  while (lineWidth(kept, (k) => k.w) > width) {
    const droppable = kept.filter((k) => k.c.drop !== undefined);
    if (droppable.length === 0) break;
    const first = droppable.reduce((a, b) => (b.c.drop! > a.c.drop! ? b : a));
    kept = kept.filter((k) => k !== first);
  }
  const floor = (k: Kept<T>) => (isId(k.c) ? k.w : Math.min(k.w, MIN_COLUMN));
  while (lineWidth(kept, floor) > width) {
    const last = kept.findLastIndex((k) => !isId(k.c));
    if (last === -1) break; // only ids left: the line stays longer
    kept = kept.filter((_, i) => i !== last);
  }
  return kept.map((k) => k.c);
}

type Layout<T> = { columns: Column<T>[]; widths: number[]; texts: string[][]; natural: number[] };

/** Which columns a table keeps at `width`, how wide each is, and its cells. */
function layout<T>(all: Column<T>[], rows: T[], width?: number): Layout<T> {
  const allTexts = rows.map((row) =>
    all.map((c) => (isId(c) ? cell(c.value(row)) : fit(cell(c.value(row)), c.maxWidth ?? DEFAULT_MAX_WIDTH))),
  );
  const allNatural = all.map((c, i) => Math.max(c.header.length, ...allTexts.map((r) => r[i]!.length)));
  const columns = width ? keepColumns(all, allNatural, width) : all;
  const keep = columns.map((c) => all.indexOf(c));
  const texts = allTexts.map((r) => keep.map((i) => r[i]!));
  const natural = keep.map((i) => allNatural[i]!);
  const widths = width
    ? fitWidths(
        natural,
        columns.map((c) => isId(c)),
        width,
      )
    : natural;
  return { columns, widths, texts, natural };
}

/**
 * A plain-text table: header, dashes, one line per row; long cells are cut with an ellipsis, never
 * ids. With `width` (the terminal's), no line is longer: columns marked `drop` leave first, then
 * the widest columns are cut, then columns leave from the right; ids stay whole.
 */
export function renderTable<T>(all: Column<T>[], rows: T[], width?: number): string {
  if (rows.length === 0) return "(none)";
  const { columns, widths, texts } = layout(all, rows, width);
  const line = (parts: string[]) =>
    parts
      .map((p, i) => fit(p, widths[i]!).padEnd(widths[i]!))
      .join(" ".repeat(GAP))
      .trimEnd();
  return [line(columns.map((c) => c.header)), line(widths.map((w) => "-".repeat(w))), ...texts.map(line)].join("\n");
}

/** How `renderRows` printed: a table, or one record per block. */
export type Rendered = { text: string; blocks: boolean };

/**
 * Whether the table fits `width` as a table: every column that is not droppable kept, no column
 * cut below its `min` (or its longest cell, when shorter), no line longer than the width.
 */
function fitsAsTable<T>(all: Column<T>[], rows: T[], width: number): boolean {
  const { columns, widths, natural } = layout(all, rows, width);
  if (all.some((c) => c.drop === undefined && !columns.includes(c))) return false;
  if (widths.reduce((a, b) => a + b, 0) + GAP * (widths.length - 1) > width) return false;
  return columns.every((c, i) => c.min === undefined || widths[i]! >= Math.min(c.min, natural[i]!));
}

/** A header as a label: `MIN SCORE` → `Min score`, ids stay `ID`. */
const labelOf = (header: string) => (header.charAt(0) + header.slice(1).toLowerCase()).replace(/\bid\b/g, "ID").replace(/^Id\b/, "ID");

/**
 * One record per block, as `kubectl describe` prints: `Label:  value` lines, a blank line between
 * records. Every column is there; ids are whole (on a line of their own when label and id do not
 * fit together), other values are cut to the width only.
 */
export function renderBlocks<T>(columns: Column<T>[], rows: T[], width?: number): string {
  if (rows.length === 0) return "(none)";
  const labels = columns.map((c) => `${labelOf(c.header)}:`);
  const pad = Math.max(...labels.map((l) => l.length)) + 1;
  return rows
    .map((row) =>
      columns
        .map((c, i) => {
          const value = cell(c.value(row));
          const label = labels[i]!.padEnd(pad);
          if (!width || label.length + value.length <= width) return `${label}${value}`;
          if (isId(c)) return `${labels[i]}\n  ${value}`;
          return `${label}${fit(value, width - label.length)}`;
        })
        .join("\n"),
    )
    .join("\n\n");
}

/**
 * Rows for a person: a table that fits `width` (renderTable), or, when the table could only fit by
 * leaving out a column that is not droppable, cutting a column below its `min` or cutting an id,
 * one record per block (renderBlocks). Without a width: the whole table.
 */
export function renderRows<T>(columns: Column<T>[], rows: T[], width?: number): Rendered {
  if (!width || rows.length === 0 || fitsAsTable(columns, rows, width)) return { text: renderTable(columns, rows, width), blocks: false };
  return { text: renderBlocks(columns, rows, width), blocks: true };
}

/**
 * How wide output may be: the terminal's columns, else COLUMNS (as shells export it), else
 * unbounded (a pipe or a file gets whole cells).
 */
export function outputWidth(stream: { isTTY?: boolean; columns?: number }, env: Record<string, string | undefined>): number | undefined {
  if (stream.isTTY && stream.columns && stream.columns > 0) return stream.columns;
  const fromEnv = Number(env["COLUMNS"]);
  return Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : undefined;
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
    /** Width tables must fit (the terminal's); undefined: no limit. */
    readonly width?: number,
  ) {}

  /** Prints `value` as JSON, or `human()` as text. */
  result(value: unknown, human: () => string): void {
    this.stdout.write(this.json ? `${JSON.stringify(value, null, 2)}\n` : `${human()}\n`);
  }

  table<T>(rows: T[], columns: Column<T>[], json: unknown = rows): void {
    this.result(json, () => this.rows(columns, rows));
  }

  /**
   * `rows` as text for people, fitted to the width: a table, or one record per block when the
   * table cannot fit (a note on stderr then names --wide).
   */
  rows<T>(columns: Column<T>[], rows: T[]): string {
    const { text, blocks } = renderRows(columns, rows, this.width);
    if (blocks && !this.blockNoted) {
      this.blockNoted = true;
      this.note(`(one record per block: the table does not fit ${this.width} columns; --wide prints it whole)`);
    }
    return text;
  }

  private blockNoted = false;

  record(value: unknown, fields: [string, unknown][]): void {
    this.result(value, () => renderRecord(fields));
  }

  /** A short human message (not part of the result). */
  note(message: string): void {
    this.stderr.write(`${message}\n`);
  }
}
