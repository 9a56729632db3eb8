import type { TObject, TSchema } from "@sinclair/typebox";
import { Option, type Command } from "commander";
import { CliError, EXIT } from "./cli-errors.js";

/**
 * Command-line options derived from the API's own request schemas (src/contracts), so every
 * writable field has a flag, with the server's types, enums and required fields, and no list of
 * fields is kept twice. `min_score` becomes `--min-score <value>`.
 */

type FieldKind = { type: string; nullable: boolean; enum: string[] | undefined };

function kindOf(schema: TSchema): FieldKind {
  const s = schema as { type?: string | string[]; anyOf?: TSchema[]; enum?: string[] };
  if (s.anyOf) {
    const members = s.anyOf.map(kindOf);
    const main = members.find((m) => m.type !== "null") ?? { type: "string", nullable: false, enum: undefined };
    return { ...main, nullable: members.some((m) => m.type === "null" || m.nullable) };
  }
  if (Array.isArray(s.type)) {
    return { type: s.type.find((t) => t !== "null") ?? "string", nullable: s.type.includes("null"), enum: s.enum };
  }
  return { type: s.type ?? "string", nullable: false, enum: s.enum };
}

const kebab = (name: string) => name.replace(/_/g, "-");
const camel = (name: string) => name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** Fields a client may send: everything but the read-only ones (ignored by the server anyway). */
export function writableFields(schema: TObject, exclude: readonly string[] = []): [string, TSchema][] {
  return Object.entries(schema.properties).filter(([name, s]) => !(s as { readOnly?: boolean }).readOnly && !exclude.includes(name)) as [
    string,
    TSchema,
  ][];
}

function hint(kind: FieldKind): string {
  const base = kind.enum
    ? ""
    : kind.type === "boolean"
      ? "true|false"
      : kind.type === "integer"
        ? "whole number"
        : kind.type === "array"
          ? "comma-separated"
          : "";
  return [base, kind.nullable ? '"null" clears it' : ""].filter(Boolean).join("; ");
}

/** Adds one `--field <value>` option per writable field; `required` follows the schema when asked. */
export function addSchemaOptions(
  cmd: Command,
  schema: TObject,
  opts: { enforceRequired?: boolean; exclude?: readonly string[] } = {},
): Command {
  const required = new Set(opts.enforceRequired ? (schema.required ?? []) : []);
  for (const [name, field] of writableFields(schema, opts.exclude)) {
    const kind = kindOf(field);
    const description = [
      (field as { description?: string }).description ?? name.replace(/_/g, " "),
      hint(kind),
      required.has(name) ? "required" : "",
    ]
      .filter(Boolean)
      .join(" — ");
    const option = new Option(`--${kebab(name)} <${kind.type === "array" ? "list" : "value"}>`, description);
    if (kind.enum) option.choices(kind.nullable ? [...kind.enum, "null"] : kind.enum);
    if (required.has(name)) option.makeOptionMandatory(true);
    cmd.addOption(option);
  }
  if (required.size > 0) cmd.usage(usageWithRequired(cmd, schema, [...required]));
  return cmd;
}

/** The usage line names the required options, not only `[options]`: `<position-id> --name <value> … [options]`. */
function usageWithRequired(cmd: Command, schema: TObject, required: string[]): string {
  const args = cmd.registeredArguments.map((a) => (a.required ? `<${a.name()}>` : `[${a.name()}]`));
  const flags = required.map((name) => {
    const field = schema.properties[name];
    return `--${kebab(name)} <${field && kindOf(field).type === "array" ? "list" : "value"}>`;
  });
  return [...args, ...flags, "[options]"].join(" ");
}

/** The request body from the options given (absent options are absent fields: a partial update). */
export function bodyFromOptions(
  schema: TObject,
  options: Record<string, unknown>,
  exclude: readonly string[] = [],
): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [name, field] of writableFields(schema, exclude)) {
    const raw = options[camel(name)];
    if (raw === undefined) continue;
    body[name] = convert(kindOf(field), String(raw), `--${kebab(name)}`);
  }
  return body;
}

/** The schema's fields by name, for converting columns of a CSV file. */
export function fieldConverter(schema: TObject): { names: string[]; convert(name: string, raw: string, where: string): unknown } {
  const fields = new Map(writableFields(schema).map(([name, s]) => [name, kindOf(s)]));
  for (const [name, s] of Object.entries(schema.properties)) if (!fields.has(name)) fields.set(name, kindOf(s as TSchema));
  return {
    names: [...fields.keys()],
    convert: (name, raw, where) => convert(fields.get(name)!, raw, where),
  };
}

function convert(kind: FieldKind, raw: string, where: string): unknown {
  const value = raw.trim();
  if (kind.nullable && (value === "null" || value === "")) return null;
  switch (kind.type) {
    case "boolean":
      if (/^(true|yes|1|on)$/i.test(value)) return true;
      if (/^(false|no|0|off)$/i.test(value)) return false;
      throw new CliError(`${where}: expected true or false, got ${JSON.stringify(raw)}`, EXIT.USAGE);
    case "integer":
      if (/^-?\d+$/.test(value)) return Number(value);
      throw new CliError(`${where}: expected a whole number, got ${JSON.stringify(raw)}`, EXIT.USAGE);
    case "number":
      if (value !== "" && Number.isFinite(Number(value))) return Number(value);
      throw new CliError(`${where}: expected a number, got ${JSON.stringify(raw)}`, EXIT.USAGE);
    case "array":
      return value === ""
        ? []
        : value
            .split(/[,;]/)
            .map((v) => v.trim())
            .filter(Boolean);
    case "object":
      try {
        return JSON.parse(value);
      } catch {
        throw new CliError(`${where}: expected a JSON object`, EXIT.USAGE);
      }
    default:
      return raw;
  }
}
