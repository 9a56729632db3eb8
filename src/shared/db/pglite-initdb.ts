import { execFile } from "node:child_process";
import { existsSync, readdirSync, renameSync, rmSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** True when `dataDir` holds no database yet: PGlite would run initdb there. */
export const needsInitdb = (dataDir: string) =>
  !existsSync(join(dataDir, "PG_VERSION")) && (!existsSync(dataDir) || readdirSync(dataDir).length === 0);

/**
 * Creates the database cluster in `dataDir` in a short-lived child process, as Postgres itself runs
 * initdb as a program of its own. In-process, PGlite's initdb starts a second, throw-away Postgres
 * beside the real one: the process peaked at ~1.1 GB on a first `npm start` and kept ~100 MB more
 * than on any later start (the freed WebAssembly compilation memory stays with the C allocator,
 * fragmented). The child writes to a sibling directory that is renamed into place only when initdb
 * succeeded, so an interrupted first start leaves no half-made cluster behind; the server then
 * opens the cluster as on every later start. `nodeFlags` go to the child's Node (the WebAssembly
 * compiler's, with PGLITE_WASM_COMPILER=baseline).
 */
export async function initdbOutOfProcess(dataDir: string, startParams: string[], nodeFlags: string[] = []): Promise<void> {
  const staging = join(dirname(dataDir), `.${basename(dataDir)}-initdb-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  // The child imports PGlite by its resolved URL, so it works from any working directory, and
  // needs nothing of this project's sources (no TypeScript loader either).
  const script = `const { PGlite } = await import(${JSON.stringify(import.meta.resolve("@electric-sql/pglite"))});
const [dir, params] = [process.argv[1], JSON.parse(process.argv[2])];
await (await PGlite.create(dir, { startParams: params })).close();`;
  try {
    await run(process.execPath, [...nodeFlags, "--input-type=module", "-e", script, staging, JSON.stringify(startParams)], {
      maxBuffer: 16 * 1024 * 1024,
    });
    if (existsSync(dataDir)) rmSync(dataDir, { recursive: true }); // empty (needsInitdb)
    renameSync(staging, dataDir);
  } catch (err) {
    rmSync(staging, { recursive: true, force: true });
    const stderr = (err as { stderr?: string }).stderr?.trim();
    throw new Error(`creating the embedded database in ${dataDir} failed${stderr ? `: ${stderr}` : ""}`, { cause: err });
  }
}
