import { CliError, EXIT } from "./cli-errors.js";

/**
 * RFC 4180 CSV: comma-separated, fields optionally in double quotes (a quote inside is doubled),
 * quoted fields may hold commas and line breaks, CRLF or LF line ends, a UTF-8 BOM is ignored.
 * Answers the rows as arrays of strings; blank lines are skipped.
 */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const endRow = () => {
    row.push(field);
    if (row.length > 1 || row[0] !== "") rows.push(row);
    row = [];
    field = "";
  };
  for (; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"' && field === "") quoted = true;
    else if (ch === ",") {
      row.push(field);
      field = "";
    } else if (ch === "\n" || ch === "\r") {
      if (ch === "\r" && text[i + 1] === "\n") i++;
      endRow();
    } else field += ch;
  }
  if (quoted) throw new CliError("CSV: a quoted field is not closed", EXIT.USAGE);
  if (field !== "" || row.length > 0) endRow();
  return rows;
}

/** Rows of a CSV with a header line, as objects keyed by the header's names. */
export function csvRecords(text: string): { header: string[]; records: { line: number; values: Record<string, string> }[] } {
  const [header, ...rows] = parseCsv(text);
  if (!header) throw new CliError("CSV: the file is empty (a header line naming the columns is needed)", EXIT.USAGE);
  const names = header.map((h) => h.trim());
  return {
    header: names,
    records: rows.map((cells, index) => {
      if (cells.length !== names.length) {
        throw new CliError(`CSV row ${index + 2}: ${cells.length} fields, but the header has ${names.length}`, EXIT.USAGE);
      }
      return { line: index + 2, values: Object.fromEntries(names.map((n, i) => [n, cells[i]!])) };
    }),
  };
}
