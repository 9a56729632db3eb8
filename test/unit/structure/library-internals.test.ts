import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { test } from "node:test";
import ts from "typescript";
import { SRC, sourceFiles } from "./source-files.js";

/**
 * A library's private members (`_name`, by JavaScript's convention) and V8's run-time flags are
 * used in one adapter file each (issue 39), so an upgrade of pg or PGlite is checked in one place:
 * test/integration/shared/library-internals.test.ts fails when the library changes under them.
 */
const ADAPTERS: Readonly<Record<string, string>> = {
  "shared/db/pool-bounds.ts": "pg-pool's _clients and _pendingQueue, pg's _getActiveQuery and connection.stream",
  "shared/db/named-statement.ts": "PGlite's _checkReady, _runExclusiveTransaction, _runExclusiveQuery and execProtocol",
  "runtime/release-memory.ts": "V8's --expose-gc, set for one throw-away context",
  "shared/db/database.ts": "V8's WebAssembly tiering flags, set before PGlite loads when its baseline compiler is chosen",
};

/** Where one source text reaches a private member or a V8 flag: `line: text` entries. */
export function internalsUsed(path: string, text: string): string[] {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, path.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: string[] = [];
  const at = (node: ts.Node) => `${path}:${file.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${node.getText().slice(0, 60)}`;
  const visit = (node: ts.Node) => {
    if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.name) && node.name.text.startsWith("_")) found.push(at(node));
    else if (
      ts.isElementAccessExpression(node) &&
      ts.isStringLiteral(node.argumentExpression) &&
      node.argumentExpression.text.startsWith("_")
    )
      found.push(at(node));
    else if (
      ts.isBinaryExpression(node) &&
      node.operatorToken.kind === ts.SyntaxKind.InKeyword &&
      ts.isStringLiteral(node.left) &&
      node.left.text.startsWith("_")
    )
      found.push(at(node));
    else if (ts.isIdentifier(node) && node.text === "setFlagsFromString" && !ts.isImportSpecifier(node.parent)) found.push(at(node));
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

test("private members of libraries and V8 flags are reached only from their adapter files", () => {
  const used = new Map<string, string[]>();
  for (const file of sourceFiles()) {
    const path = relative(SRC, file);
    const found = internalsUsed(path, readFileSync(file, "utf8"));
    if (found.length > 0) used.set(path, found);
  }
  assert.deepEqual(
    [...used].filter(([path]) => !(path in ADAPTERS)).flatMap(([, found]) => found),
    [],
  );
  const stale = Object.keys(ADAPTERS).filter((path) => !used.has(path));
  assert.deepEqual(stale, [], "adapters that no longer reach any internals: remove them from the list");
});

test("the check sees member access, element access, `in` tests and V8 flags", () => {
  const text = [
    "pool._clients.length;",
    'client["_runExclusiveQuery"];',
    '"_checkReady" in client;',
    'setFlagsFromString("--expose-gc");',
    "obj.public_name; obj.name_;",
  ].join("\n");
  assert.deepEqual(
    internalsUsed("x.ts", text).map((f) => f.split(":")[1]),
    ["1", "2", "3", "4"],
  );
});
