/**
 * `npm run bench -- <name> [args]` runs bench/<name>.bench.ts. Each benchmark measures against a
 * baseline in the same run and prints a markdown table; figures go into bench/README.md.
 */
import { readdirSync } from "node:fs";

const [name, ...args] = process.argv.slice(2);
const available = readdirSync(new URL(".", import.meta.url))
  .filter((f) => f.endsWith(".bench.ts"))
  .map((f) => f.replace(/\.bench\.ts$/, ""));
if (!name || !available.includes(name)) {
  process.stderr.write(`usage: npm run bench -- <${available.join("|")}> [args]\n`);
  process.exit(2);
}
const mod = (await import(`./${name}.bench.ts`)) as { main(args: string[]): Promise<void> };
await mod.main(args);
process.exit(0);
