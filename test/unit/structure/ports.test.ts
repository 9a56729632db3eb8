import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { test } from "node:test";
import ts from "typescript";
import { SRC, sourceFiles } from "./source-files.js";

/**
 * The interfaces between services (ports) live in src/shared/ports/ (and any `ports.ts`): types
 * only, with no SQL, no Drizzle type and no table name, so a port says what one service needs of
 * another and never how the other stores it. Every implementation is declared where it is built
 * (`satisfies Port` or `implements Port`), so a reader (and a tool) can follow a port to it.
 */

type Source = { path: string; file: ts.SourceFile };

const parse = (path: string, text: string = readFileSync(path, "utf8")): Source => ({
  path,
  file: ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS),
});

const isPortsModule = (path: string) => path.startsWith("shared/ports/") || path.endsWith("/ports.ts") || path === "ports.ts";

/** Modules a port may not import: the database layer and its tables and repositories. */
const STORAGE_MODULE =
  /(^|\/)(drizzle-orm(\/.*)?|pg|@electric-sql\/pglite(\/.*)?|db\/database(\.js)?|[\w.-]+\.(tables|repository)(\.js)?)$/;
/** Type names of the database layer (Drizzle's, and shared/db's aliases of them). */
const STORAGE_TYPES = new Set(["SQL", "SQLWrapper", "Db", "Tx", "Queryable", "PgDatabase", "PgTransaction", "PgTable", "AnyColumn"]);
/** A statement (or a piece of one) in a string: SELECT … FROM, INSERT INTO, UPDATE … SET, DELETE FROM, a CTE. */
const SQL_TEXT = /\b(select\b[\s\S]*\bfrom|insert\s+into|update\s+\w+\s+set|delete\s+from|with\s+\w+\s+as\s*\()\b/i;

/** Table names, from the migrations' `create table` statements. */
function tableNames(): Set<string> {
  const names = new Set<string>();
  const migrations = new URL("../../../migrations/", import.meta.url);
  for (const name of ts.sys.readDirectory(migrations.pathname, [".sql"])) {
    for (const m of readFileSync(name, "utf8").matchAll(/create\s+table\s+(?:if\s+not\s+exists\s+)?"?(\w+)"?/gi))
      names.add(m[1]!.toLowerCase());
  }
  return names;
}

/** Whether an import or re-export brings in types only. */
function typeOnly(node: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isExportDeclaration(node))
    return (
      node.isTypeOnly ||
      (!!node.exportClause && ts.isNamedExports(node.exportClause) && node.exportClause.elements.every((e) => e.isTypeOnly))
    );
  const clause = node.importClause;
  if (!clause) return false; // an import for its side effects
  if (clause.isTypeOnly) return true;
  const bindings = clause.namedBindings;
  return !clause.name && !!bindings && ts.isNamedImports(bindings) && bindings.elements.every((e) => e.isTypeOnly);
}

/** What a ports module may not hold, each as `path:line: why`. */
export function portViolations({ path, file }: Source, tables: ReadonlySet<string>): string[] {
  const found: string[] = [];
  const at = (node: ts.Node, why: string) => found.push(`${path}:${file.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${why}`);
  const imported = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) {
      if (!node.moduleSpecifier) return;
      const from = (node.moduleSpecifier as ts.StringLiteral).text;
      if (STORAGE_MODULE.test(from)) at(node, `imports ${from}: a port knows nothing of storage`);
      if (!typeOnly(node)) at(node, `imports values from ${from}: a port is types only`);
      const bindings = ts.isImportDeclaration(node) ? node.importClause?.namedBindings : undefined;
      if (bindings && ts.isNamedImports(bindings)) for (const e of bindings.elements) imported.add(e.name.text);
      return;
    }
    if (ts.isTypeReferenceNode(node)) {
      const name = ts.isIdentifier(node.typeName) ? node.typeName.text : node.typeName.right.text;
      // Imported under that name (a type parameter may be called Tx: it is the caller's business what it is).
      if (STORAGE_TYPES.has(name) && (imported.has(name) || !ts.isIdentifier(node.typeName))) at(node, `uses the storage type ${name}`);
    } else if (ts.isTaggedTemplateExpression(node) && node.tag.getText() === "sql") {
      at(node, "holds SQL (a sql`` template)");
    } else if (ts.isStringLiteralLike(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) {
      if (SQL_TEXT.test(node.text)) at(node, `holds SQL text (${JSON.stringify(node.text.slice(0, 40))})`);
      else if (tables.has(node.text.toLowerCase())) at(node, `names the table ${node.text}`);
    } else if (
      (ts.isVariableStatement(node) || ts.isFunctionDeclaration(node) || ts.isClassDeclaration(node) || ts.isEnumDeclaration(node)) &&
      !node.modifiers?.some((m) => m.kind === ts.SyntaxKind.DeclareKeyword)
    ) {
      at(node, "holds code: a port is types only");
    } else if (ts.isExpressionStatement(node)) {
      at(node, "holds code: a port is types only");
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/**
 * A port: an exported interface of a ports module (with the names of its required methods), or an
 * exported function type (a hook: `members` is empty).
 */
type Port = { name: string; members: string[] };

export function portsOf({ file }: Source): Port[] {
  const ports: Port[] = [];
  for (const node of file.statements) {
    if (!ts.canHaveModifiers(node) || !ts.getModifiers(node)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) continue;
    if (ts.isInterfaceDeclaration(node)) {
      const members = node.members
        .filter((m) => m.name && !m.questionToken)
        .map((m) => (m.name as ts.Identifier).text)
        .sort();
      ports.push({ name: node.name.text, members });
    } else if (ts.isTypeAliasDeclaration(node) && ts.isFunctionTypeNode(node.type)) {
      ports.push({ name: node.name.text, members: [] });
    } else if (ts.isTypeAliasDeclaration(node) && ts.isTypeLiteralNode(node.type)) {
      // An object type with methods is a port spelled as a type alias; one of data only is not.
      const methods = node.type.members.filter(
        (m) => !m.questionToken && (ts.isMethodSignature(m) || (ts.isPropertySignature(m) && !!m.type && ts.isFunctionTypeNode(m.type))),
      );
      if (methods.length > 0) ports.push({ name: node.name.text, members: methods.map((m) => (m.name as ts.Identifier).text).sort() });
    }
  }
  return ports;
}

/** The name of the type a `satisfies` / `implements` clause names (`Port` of `Port<A, B>`). */
const declaredName = (type: ts.Node): string | null =>
  ts.isTypeReferenceNode(type)
    ? ts.isIdentifier(type.typeName)
      ? type.typeName.text
      : type.typeName.right.text
    : ts.isExpressionWithTypeArguments(type)
      ? type.expression.getText()
      : null;

/** Whether `node` is declared as `port` right where it is: `… satisfies Port`, or a class that `implements Port`. */
function declaredAs(node: ts.Node, port: string): boolean {
  if (ts.isClassLike(node))
    return !!node.heritageClauses?.some(
      (h) => h.token === ts.SyntaxKind.ImplementsKeyword && h.types.some((t) => declaredName(t) === port),
    );
  let up = node.parent;
  while (ts.isParenthesizedExpression(up) || ts.isAsExpression(up)) up = up.parent;
  return ts.isSatisfiesExpression(up) && declaredName(up.type) === port;
}

/** The names of the methods (or function-valued properties) an object literal or a class gives. */
function methodNames(node: ts.ObjectLiteralExpression | ts.ClassLikeDeclaration): Set<string> {
  const names = new Set<string>();
  for (const m of ts.isObjectLiteralExpression(node) ? node.properties : node.members) {
    if (!m.name || !(ts.isIdentifier(m.name) || ts.isStringLiteral(m.name))) continue;
    const value = ts.isPropertyAssignment(m) || ts.isPropertyDeclaration(m) ? m.initializer : undefined;
    const isFunction =
      ts.isMethodDeclaration(m) ||
      ts.isShorthandPropertyAssignment(m) ||
      (!!value && (ts.isArrowFunction(value) || ts.isFunctionExpression(value)));
    if (isFunction) names.add(m.name.text);
  }
  return names;
}

/**
 * The implementations of `ports` that do not say so, each as `path:line: why`: an object literal
 * or class that has every required method of a port (two or more: one name alone says too little,
 * and a function type, a hook, nothing) must be declared as it. Also the ports nothing declares
 * conformance to.
 */
export function conformanceViolations(sources: Source[], ports: Port[]): string[] {
  const found: string[] = [];
  const declared = new Set<string>();
  for (const { path, file } of sources) {
    const visit = (node: ts.Node) => {
      if (ts.isSatisfiesExpression(node)) declared.add(declaredName(node.type) ?? "");
      if (ts.isClassLike(node)) for (const h of node.heritageClauses ?? []) for (const t of h.types) declared.add(declaredName(t) ?? "");
      if (ts.isObjectLiteralExpression(node) || ts.isClassLike(node)) {
        const names = methodNames(node);
        for (const port of ports) {
          if (port.members.length < 2 || !port.members.every((m) => names.has(m)) || declaredAs(node, port.name)) continue;
          const line = file.getLineAndCharacterOfPosition(node.getStart()).line + 1;
          found.push(
            `${path}:${line}: implements ${port.name} without saying so (add \`satisfies ${port.name}\` or \`implements ${port.name}\`)`,
          );
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  for (const port of ports)
    if (!declared.has(port.name)) found.push(`${port.name}: no implementation in src/ is declared with satisfies/implements`);
  return found;
}

const all = () => [...sourceFiles()].map((path) => ({ ...parse(path), path: relative(SRC, path) }));

test("the ports modules hold types only: no SQL, no Drizzle type, no table name, no value", () => {
  const sources = all();
  const ports = sources.filter((s) => isPortsModule(s.path));
  assert.ok(ports.length >= 2, `found only ${ports.length} ports modules: the scan is broken`);
  const tables = tableNames();
  assert.ok(tables.has("sync_runs") && tables.has("candidates"), "the table names were not read from the migrations");
  assert.deepEqual(
    ports.flatMap((s) => portViolations(s, tables)),
    [],
  );
});

test("every implementation of a port is declared as one (satisfies / implements), and every port has one", () => {
  const sources = all();
  const ports = sources.filter((s) => isPortsModule(s.path)).flatMap(portsOf);
  assert.ok(
    ports.some((p) => p.name === "RecruitingStore"),
    "the ports were not read",
  );
  assert.deepEqual(
    conformanceViolations(
      sources.filter((s) => !isPortsModule(s.path)),
      ports,
    ),
    [],
  );
});

test("the checks catch SQL, storage types, values and table names in a port, and an undeclared implementation", () => {
  const port = parse(
    "shared/ports/bad.ts",
    [
      'import type { SQL } from "drizzle-orm";',
      'import type { Queryable } from "../db/database.js";',
      'import { helper } from "./helper.js";',
      "export interface Store { write(q: Queryable): Promise<SQL>; read(): Promise<number>; kind?: 'sync_runs' }",
      'export type Statement = "select id from candidates";',
      "export const limit = 5;",
    ].join("\n"),
  );
  const why = portViolations({ ...port, path: "shared/ports/bad.ts" }, new Set(["sync_runs", "candidates"])).map((v) =>
    v.replace(/^[^:]+:\d+: /, ""),
  );
  assert.deepEqual(why, [
    "imports drizzle-orm: a port knows nothing of storage",
    "imports ../db/database.js: a port knows nothing of storage",
    "imports values from ./helper.js: a port is types only",
    "uses the storage type Queryable",
    "uses the storage type SQL",
    "names the table sync_runs",
    'holds SQL text ("select id from candidates")',
    "holds code: a port is types only",
  ]);

  const ports = portsOf(port);
  assert.deepEqual(ports, [{ name: "Store", members: ["read", "write"] }]);
  const impl = parse(
    "services/x/store.ts",
    [
      "export const declared = { write: async () => 1, read: async () => 2 } satisfies Store;",
      "export const bare = { write: async () => 1, read: async () => 2, extra: 3 };",
      "export class Declared implements Store { write() {} read() {} }",
      "export class Bare { write() {} read() {} }",
      "export const partial = { read: async () => 2 };",
    ].join("\n"),
  );
  assert.deepEqual(conformanceViolations([impl], ports), [
    "services/x/store.ts:2: implements Store without saying so (add `satisfies Store` or `implements Store`)",
    "services/x/store.ts:4: implements Store without saying so (add `satisfies Store` or `implements Store`)",
  ]);
  assert.deepEqual(conformanceViolations([parse("services/x/none.ts", "export const x = 1;")], ports), [
    "Store: no implementation in src/ is declared with satisfies/implements",
  ]);
});

test("the conformance check reports an undeclared implementation and a port nothing declares, and passes a declared one", () => {
  const port = parse(
    "ports.ts",
    "export interface Store { get(id: string): Promise<string>; put(id: string): Promise<void> }\n" +
      "export type Reader = { read(): Promise<string>; close: () => Promise<void>; name: string };\n" +
      "export type Row = { id: string; name: string };",
  );
  const ports = portsOf(port);
  assert.deepEqual(
    ports.map((p) => `${p.name}:${p.members.join(",")}`),
    ["Store:get,put", "Reader:close,read"],
  );
  const undeclared = parse("impl.ts", "export const store = { async get() { return ''; }, async put() {} };");
  assert.deepEqual(conformanceViolations([undeclared], ports), [
    "impl.ts:1: implements Store without saying so (add `satisfies Store` or `implements Store`)",
    "Store: no implementation in src/ is declared with satisfies/implements",
    "Reader: no implementation in src/ is declared with satisfies/implements",
  ]);
  const declared = parse(
    "impl.ts",
    "export const store = { async get() { return ''; }, async put() {} } satisfies Store;\n" +
      "export class FileReader implements Reader { name = 'f'; async read() { return ''; } close = async () => {}; }",
  );
  assert.deepEqual(conformanceViolations([declared], ports), []);
});
