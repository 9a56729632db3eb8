import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { test } from "node:test";
import ts from "typescript";
import { SRC, sourceFiles } from "./source-files.js";

/**
 * No function in src/ is longer than one screen (issue 33): a factory that builds a service from
 * closures hides its hot paths, so it is split into named module-level functions or small classes.
 * Counted: function declarations and expressions, arrow functions, methods, accessors and
 * constructors, from their first line to their last (comments and blank lines count: they are read).
 */
export const MAX_LINES = 80;

/**
 * Functions that may stay longer for now, as `path#name` (path relative to src/), each with its
 * reason. Empty since every long function of issue 33 was split; an entry that no longer names a
 * long function fails the test.
 */
const ALLOWED: Readonly<Record<string, string>> = {};

type Long = { where: string; lines: number };

/** The name a reader would look a function up by: its own, its variable's, its property's, or `<anonymous>`. */
function nameOf(node: ts.FunctionLikeDeclaration): string {
  if (node.name && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name) || ts.isPrivateIdentifier(node.name)))
    return node.name.text;
  if (ts.isConstructorDeclaration(node)) return "constructor";
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if ((ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) && ts.isIdentifier(parent.name)) return parent.name.text;
  return "<anonymous>";
}

/** Every function of one source text longer than `max` lines, as `path#name` with its length. */
export function longFunctions(path: string, text: string, max: number = MAX_LINES): Long[] {
  // `.ts` is parsed as TypeScript: read as TSX, a generic arrow (`<T>(x: T) => …`) is a JSX tag,
  // the file fails to parse and the functions after it go unseen (issue 39 found an 85-line one).
  const kind = path.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, kind);
  const errors = (file as unknown as { parseDiagnostics: readonly ts.Diagnostic[] }).parseDiagnostics;
  if (errors.length > 0) throw new Error(`${path} does not parse: ${ts.flattenDiagnosticMessageText(errors[0]!.messageText, "\n")}`);
  const found: Long[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const fn = node as ts.FunctionLikeDeclaration;
      const first = file.getLineAndCharacterOfPosition(fn.getStart()).line;
      const last = file.getLineAndCharacterOfPosition(fn.getEnd()).line;
      if (last - first + 1 > max) found.push({ where: `${path}#${nameOf(fn)}`, lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

test(`no function in src/ is longer than ${MAX_LINES} lines (or it is allowlisted with a reason)`, () => {
  const files = [...sourceFiles()];
  assert.ok(files.length > 200, `found only ${files.length} files: the scan is broken`);
  const long = files.flatMap((f) => longFunctions(relative(SRC, f), readFileSync(f, "utf8")));
  assert.deepEqual(
    long.filter((l) => !(l.where in ALLOWED)).map((l) => `${l.where}: ${l.lines} lines`),
    [],
  );
  const stale = Object.keys(ALLOWED).filter((w) => !long.some((l) => l.where === w));
  assert.deepEqual(stale, [], "allowlist entries that name no long function any more: remove them");
  for (const [where, why] of Object.entries(ALLOWED)) assert.ok(why.trim().length > 10, `${where} needs a reason`);
});

test("the check sees declarations, arrows, methods and object members, and passes a short function", () => {
  const body = (n: number) => Array.from({ length: n }, (_, i) => `  const v${i} = ${i};`).join("\n");
  const text = [
    `export function long() {\n${body(80)}\n}`,
    `const arrow = () => {\n${body(80)}\n};`,
    `class C {\n  method() {\n${body(80)}\n  }\n}`,
    `const o = { member: function () {\n${body(80)}\n} };`,
    `const generic = async <T,>(x: T): Promise<T> => {\n${body(80)}\n  return x;\n};`,
    `const plain = <T>(x: T) => {\n${body(80)}\n  return x;\n};`,
    `function short() {\n${body(78)}\n}`,
  ].join("\n");
  assert.deepEqual(
    longFunctions("x.ts", text).map((l) => l.where),
    ["x.ts#long", "x.ts#arrow", "x.ts#method", "x.ts#member", "x.ts#generic", "x.ts#plain"],
  );
  assert.throws(() => longFunctions("y.ts", "const = ;"), /y\.ts does not parse/);
});
