import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { promisify } from "node:util";

const run = promisify(execFile);
const root = mkdtempSync(join(tmpdir(), "hirebridge-pglite-compiler-"));
after(() => rmSync(root, { recursive: true, force: true }));

/**
 * A fresh process (so its peak is PGlite's alone) that opens PGlite on disk with the given compiler
 * setting, applies every migration, writes and reads some rows, and reports its peak RSS (VmHWM).
 */
async function inChild(compiler: string): Promise<{ peakMb: number; names: string[] }> {
  const src = (path: string) => JSON.stringify(new URL(`../../../src/${path}`, import.meta.url).href);
  const script = `
    import { readFileSync } from "node:fs";
    const { openDatabase } = await import(${src("shared/db/database.ts")});
    const { migrate } = await import(${src("shared/db/migrate.ts")});
    const db = await openDatabase({ dataDir: process.argv[1], pgliteCompiler: process.argv[2] });
    await migrate(db);
    for (let i = 0; i < 200; i++)
      await db.query("insert into positions (organization_id, name) values (gen_random_uuid(), $1)", ["position " + i]);
    const rows = await db.query("select name from positions order by name limit 2");
    await db.close();
    const peakMb = Number(/^VmHWM:\\s+(\\d+) kB/m.exec(readFileSync("/proc/self/status", "utf8"))[1]) / 1024;
    console.log(JSON.stringify({ peakMb, names: rows.map((r) => r.name) }));`;
  const { stdout } = await run(
    process.execPath,
    ["--import", "tsx", "--input-type=module", "-e", script, join(root, compiler, "pglite"), compiler],
    { maxBuffer: 1024 * 1024 },
  );
  return JSON.parse(stdout.trim().split("\n").pop()!) as { peakMb: number; names: string[] };
}

test("PGLITE_WASM_COMPILER=baseline: the embedded database works and never reaches TurboFan's compilation peak", async () => {
  const { peakMb, names } = await inChild("baseline");
  assert.deepEqual(names, ["position 0", "position 1"]);
  // The same work with the optimizing default peaks at 700-800 MB on this kind of machine: TurboFan
  // compiling one of Postgres's largest functions takes ~640 MB of zone memory on its own.
  assert.ok(peakMb < 450, `peak RSS ${peakMb.toFixed(0)} MB`);
});
