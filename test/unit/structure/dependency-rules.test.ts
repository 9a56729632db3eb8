import assert from "node:assert/strict";
import { test } from "node:test";
import { importGraph } from "./source-files.js";

/**
 * The layering of src/ (each folder's README.md says the same):
 * - contracts/ imports only contracts/ (the wire shapes every side shares);
 * - shared/ imports shared/ and contracts/ (infrastructure any service may use);
 * - services/<name>/ imports its own folder, shared/ and contracts/ (the launcher's contract is
 *   shared/service.ts), never another service's files nor runtime/: services meet only in runtime/;
 * - runtime/ composes the services (it may import any of them, never cli/ or client/);
 * - client/ imports client/ and contracts/ (it is published alone);
 * - cli/ imports cli/, client/, contracts/, shared/ and runtime/.
 */

/**
 * Imports the rules forbid but that stay for now, each `from -> to` with paths relative to src/.
 * Empty since the sync engine went behind the interfaces it declares (issue 14). The list only
 * shrinks: an entry that no longer matches an import fails the test.
 */
const ALLOWED: readonly string[] = [];

/** The area a file under src/ belongs to: `services/<name>` or the top-level folder. */
function areaOf(path: string): string {
  const [top, name] = path.split("/");
  return top === "services" ? `services/${name}` : top!;
}

/** Why `from` may not import `to` (paths relative to src/), or null when the rules allow it. */
export function violation(from: string, to: string): string | null {
  const a = areaOf(from);
  const b = areaOf(to);
  if (a === b) return null;
  const top = a.split("/")[0];
  const allowed: Record<string, (target: string) => boolean> = {
    contracts: () => false,
    shared: (t) => t === "contracts",
    services: (t) => t === "shared" || t === "contracts",
    runtime: (t) => t !== "cli" && t !== "client",
    client: (t) => t === "contracts",
    cli: (t) => t === "client" || t === "contracts" || t === "shared" || t === "runtime",
  };
  const rule = allowed[top!];
  if (!rule) return `${a} is not a known area of src/ (add it to the rules and its README.md)`;
  if (rule(b.split("/")[0]!)) return null;
  return top === "services" && b.startsWith("services/")
    ? `${a} imports another service's file; services meet only in src/runtime/ (declare an interface and wire it there)`
    : `${a} may not import ${b}`;
}

/** Every relative import (static, type-only, re-export and dynamic) of every file under src/, as `from -> to`. */
function importsOfSrc(): string[] {
  return [...importGraph()].flatMap(([from, targets]) => targets.map((to) => `${from} -> ${to}`));
}

test("no service imports another service's files, and each src/ folder imports only what its README allows", () => {
  const edges = importsOfSrc();
  assert.ok(edges.length > 300, `found only ${edges.length} imports: the scan is broken`);
  const broken = edges
    .filter((e) => !ALLOWED.includes(e))
    .map((e) => {
      const [from, to] = e.split(" -> ") as [string, string];
      const why = violation(from, to);
      return why && `${e}: ${why}`;
    })
    .filter(Boolean);
  assert.deepEqual(broken, []);
  const stale = ALLOWED.filter((e) => !edges.includes(e));
  assert.deepEqual(stale, [], "allowlist entries that match no import any more: remove them");
});

test("the rules catch a service importing another service or the runtime, and allow the launcher's contract in shared/", () => {
  assert.match(violation("services/proxy/app.ts", "services/sync/sync-jobs.ts")!, /another service's file/);
  assert.match(violation("shared/jobs/queue.ts", "services/sync/sync.schema.ts")!, /shared may not import services\/sync/);
  assert.match(violation("contracts/proxy/webhooks.ts", "shared/errors.ts")!, /contracts may not import shared/);
  assert.match(violation("client/index.ts", "shared/config.ts")!, /client may not import shared/);
  assert.equal(violation("services/proxy/service.ts", "shared/service.ts"), null);
  assert.match(violation("services/proxy/service.ts", "runtime/wiring.ts")!, /services\/proxy may not import runtime/);
  assert.match(violation("services/token/service.ts", "runtime/stack.ts")!, /may not import runtime/);
  assert.equal(violation("runtime/stack.ts", "services/sync/sync-jobs.ts"), null);
  assert.equal(violation("services/sync/sync-jobs.ts", "services/sync/write-back.ts"), null);
});
