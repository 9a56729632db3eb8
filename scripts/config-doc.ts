/** Prints the configuration reference, or with --write refreshes it in README.md between the markers. */
import { readFileSync, writeFileSync } from "node:fs";
import { ConfigSchema } from "../src/shared/config.js";
import { configTable } from "../src/shared/config-doc.js";

const START = "<!-- config:start -->";
const END = "<!-- config:end -->";
const table = configTable(ConfigSchema);
if (process.argv.includes("--write")) {
  const readme = readFileSync("README.md", "utf8");
  const a = readme.indexOf(START);
  const b = readme.indexOf(END);
  if (a === -1 || b === -1) throw new Error("README.md has no config markers");
  writeFileSync("README.md", `${readme.slice(0, a + START.length)}\n${table}\n${readme.slice(b)}`);
} else {
  process.stdout.write(`${table}\n`);
}
