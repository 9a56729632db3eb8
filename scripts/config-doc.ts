/**
 * Prints the configuration reference, or with --write refreshes it between the config markers of
 * every document that carries it (README.md, docs/operations.md).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { CONFIG_SLICES } from "../src/runtime/config.js";
import { configTable } from "../src/shared/config-doc.js";

const CONFIG_DOCS = ["README.md", "docs/operations.md"];
const START = "<!-- config:start -->";
const END = "<!-- config:end -->";
const table = configTable(CONFIG_SLICES);
if (process.argv.includes("--write")) {
  for (const file of CONFIG_DOCS) {
    const doc = readFileSync(file, "utf8");
    const a = doc.indexOf(START);
    const b = doc.indexOf(END);
    if (a === -1 || b === -1) throw new Error(`${file} has no config markers`);
    writeFileSync(file, `${doc.slice(0, a + START.length)}\n${table}\n${doc.slice(b)}`);
  }
} else {
  process.stdout.write(`${table}\n`);
}
