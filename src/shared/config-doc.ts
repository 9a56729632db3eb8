import type { TObject, TSchema } from "@sinclair/typebox";

// Settings that hold a secret value (PASSWORD_HASH_* and PASSWORD_RESET_* are costs and switches, not secrets).
const SECRET = /PASSWORD(?!_HASH|_RESET)|SECRET|API_KEY/;

function typeOf(schema: TSchema): string {
  if (schema["anyOf"]) return (schema["anyOf"] as TSchema[]).map((s) => JSON.stringify(s["const"])).join(" \\| ");
  if (schema["type"] === "integer") {
    const range = schema["minimum"] !== undefined && schema["maximum"] !== undefined ? ` ${schema["minimum"]}–${schema["maximum"]}` : "";
    return `integer${range}`;
  }
  if (schema["pattern"] === "^https?://") return "URL";
  if (typeof schema["pattern"] === "string" && schema["pattern"].startsWith("^postgres")) return "postgres:// URL";
  if (typeof schema["pattern"] === "string" && schema["pattern"].startsWith("^redis")) return "redis:// URL";
  return String(schema["type"] ?? "string");
}

/**
 * The configuration reference as a markdown table, generated from the schemas that parse it: each
 * slice of variables with the services that read it (`all`: the shared base).
 */
export function configTable(slices: readonly { readBy: string; schema: TObject }[]): string {
  const rows = slices.flatMap(({ readBy, schema }) =>
    Object.entries(schema.properties).map(([name, s]) => {
      const def = s.default === undefined ? "(unset)" : `\`${String(s.default)}\``;
      const note = SECRET.test(name) ? " Secret: set your own outside local development." : "";
      return `| \`${name}\` | ${readBy} | ${typeOf(s)} | ${def} | ${(s.description ?? "").replace(/\|/g, "\\|")}${note} |`;
    }),
  );
  return ["| variable | read by | type | default | meaning |", "|---|---|---|---|---|", ...rows].join("\n");
}
