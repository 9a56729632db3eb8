import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { test } from "node:test";
import ts from "typescript";
import { SRC, sourceFiles } from "./source-files.js";

/**
 * Only the command line reads the environment (src/cli/): it parses the configuration once
 * (src/runtime/config.ts composes each service's slice with the shared base) and hands the parsed
 * object on, so no module depends on what happens to be set in the process.
 */
export function readsEnvironment(text: string): boolean {
  let found = false;
  const visit = (node: ts.Node) => {
    if (
      (ts.isPropertyAccessExpression(node) && node.name.text === "env") ||
      (ts.isElementAccessExpression(node) && ts.isStringLiteralLike(node.argumentExpression) && node.argumentExpression.text === "env")
    ) {
      if (node.expression.getText() === "process") found = true;
    }
    if (!found) ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile("x.ts", text, ts.ScriptTarget.Latest, true));
  return found;
}

test("no file under src/ outside src/cli/ reads process.env", () => {
  const readers = [...sourceFiles()]
    .map((f) => relative(SRC, f))
    .filter((f) => !f.startsWith("cli/") && readsEnvironment(readFileSync(`${SRC}/${f}`, "utf8")));
  assert.deepEqual(readers, []);
});

test("the check sees both spellings, and not a comment or another object's env", () => {
  assert.ok(readsEnvironment('const c = process.env["NO_COLOR"];'));
  assert.ok(readsEnvironment("const { HOME } = process['env'];"));
  assert.ok(!readsEnvironment("// parsed from process.env by the CLI\nconst env = options.env;"));
});
