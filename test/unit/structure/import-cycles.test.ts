import assert from "node:assert/strict";
import { test } from "node:test";
import { importGraph } from "./source-files.js";

/**
 * The import cycles of a graph: its strongly connected components of more than one file (or a
 * file importing itself), each sorted, found with Tarjan's algorithm. Every import counts, type-only
 * ones too: two files that need each other to be read are one file split in the wrong place.
 */
export function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || graph.get(v)!.includes(v)) cycles.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return cycles;
}

test("no file under src/ imports itself through others (static, type-only, re-export or dynamic imports)", () => {
  const graph = importGraph();
  assert.ok(graph.size > 200, `found only ${graph.size} files: the scan is broken`);
  assert.deepEqual(importCycles(graph), []);
});

test("the cycle check finds a two-file cycle, a longer one and a self-import, and passes a diamond", () => {
  const graph = new Map<string, string[]>([
    ["a.ts", ["b.ts"]],
    ["b.ts", ["a.ts", "shared.ts"]],
    ["c.ts", ["d.ts"]],
    ["d.ts", ["e.ts"]],
    ["e.ts", ["c.ts"]],
    ["self.ts", ["self.ts"]],
    ["top.ts", ["left.ts", "right.ts"]],
    ["left.ts", ["shared.ts"]],
    ["right.ts", ["shared.ts"]],
    ["shared.ts", []],
  ]);
  assert.deepEqual(
    importCycles(graph).sort((x, y) => x[0]!.localeCompare(y[0]!)),
    [["a.ts", "b.ts"], ["c.ts", "d.ts", "e.ts"], ["self.ts"]],
  );
});
