import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/** What the structure tests read: every TypeScript file under src/ and its relative imports. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
export const SRC = join(ROOT, "src");

/** Every `.ts` file under `dir`, as absolute paths. */
export function* sourceFiles(dir: string = SRC): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (entry.name.endsWith(".ts")) yield path;
  }
}

/**
 * The relative imports (static, type-only, re-export and dynamic) of one source text, as paths
 * relative to src/ (`.js` specifiers map back to their `.ts` files).
 */
export function importsOf(file: string, text: string = readFileSync(file, "utf8")): string[] {
  const { importedFiles } = ts.preProcessFile(text, true, true);
  return importedFiles
    .filter(({ fileName }) => fileName.startsWith("."))
    .map(({ fileName }) => relative(SRC, resolve(dirname(file), fileName).replace(/\.js$/, ".ts")));
}

/** The import graph of src/: each file (relative to src/) with the files it imports. */
export function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles()) graph.set(relative(SRC, file), importsOf(file));
  return graph;
}
