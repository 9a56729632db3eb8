import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { after, before, describe, test } from "node:test";

const run = promisify(execFile);
const ROOT = resolve(fileURLToPath(new URL("../../..", import.meta.url)));
const CLIENT = join(ROOT, "src", "client");

async function files(dir: string, ext: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile() && e.name.endsWith(ext)).map((e) => join(e.parentPath, e.name));
}

/** `import … from "x"` / `export … from "x"` / `import("x")` specifiers, with whether the import is type-only. */
function imports(source: string): { spec: string; typeOnly: boolean }[] {
  const found: { spec: string; typeOnly: boolean }[] = [];
  for (const m of source.matchAll(/^\s*(import|export)\s+(type\s+)?[^"';]*?\sfrom\s+"([^"]+)"/gm))
    found.push({ spec: m[3]!, typeOnly: !!m[2] });
  for (const m of source.matchAll(/^\s*import\s+"([^"]+)"/gm)) found.push({ spec: m[1]!, typeOnly: false });
  for (const m of source.matchAll(/\bimport\(\s*"([^"]+)"\s*\)/g)) found.push({ spec: m[1]!, typeOnly: false });
  return found;
}

describe("SDK distribution: browser-safe, dependency-free, runs on Node 20", () => {
  let out: string;
  before(async () => {
    out = await mkdtemp(join(tmpdir(), "hirebridge-sdk-dist-"));
    // tsconfig.client.json has `types: []` and the DOM lib: a Node-only global in the client fails this build.
    await run(
      process.execPath,
      [join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", join(ROOT, "tsconfig.client.json"), "--outDir", out],
      {
        cwd: ROOT,
      },
    );
  });
  after(() => rm(out, { recursive: true, force: true }));

  test("the client's sources import only each other at run time (contracts: types only; no node:, no packages)", async () => {
    for (const file of await files(CLIENT, ".ts")) {
      const source = await readFile(file, "utf8");
      const where = relative(ROOT, file);
      for (const { spec, typeOnly } of imports(source)) {
        assert.ok(!spec.startsWith("node:"), `${where} imports ${spec}`);
        if (spec.startsWith("../../contracts/") || spec.startsWith("../contracts/")) {
          // At run time only a contract file that imports nothing (retry-after.ts, shared with the
          // server): the others pull in TypeBox.
          if (!typeOnly) {
            const target = resolve(file, "..", spec.replace(/\.js$/, ".ts"));
            assert.deepEqual(
              imports(await readFile(target, "utf8")),
              [],
              `${where} imports ${spec} at run time, and it has imports of its own`,
            );
          }
          continue;
        }
        assert.ok(spec.startsWith("./") || spec.startsWith("../"), `${where} imports the package ${spec}`);
        assert.ok(resolve(file, "..", spec).startsWith(CLIENT), `${where} imports ${spec} from outside src/client`);
      }
      assert.doesNotMatch(source, /\b(process\.|Buffer\.|require\()/, `${where} uses a Node-only global`);
    }
  });

  test("the build emits ESM with declarations, and its JavaScript imports nothing outside dist/client but self-contained contracts", async () => {
    const js = await files(join(out, "client"), ".js");
    assert.ok(js.length > 10);
    for (const file of js) {
      for (const { spec } of imports(await readFile(file, "utf8"))) {
        assert.ok(spec.startsWith("./") || spec.startsWith("../"), `${relative(out, file)} imports ${spec}`);
        const target = resolve(file, "..", spec);
        if (target.startsWith(join(out, "contracts"))) {
          assert.ok(existsSync(target), `${relative(out, file)} imports ${spec}, which the build emitted`);
          assert.deepEqual(imports(await readFile(target, "utf8")), [], `${spec} is self-contained`);
        } else assert.ok(target.startsWith(join(out, "client")), `${relative(out, file)} imports ${spec}`);
      }
    }
    const dts = await readFile(join(out, "client", "index.d.ts"), "utf8");
    assert.match(dts, /export \{ Hirebridge, type HirebridgeOptions \} from "\.\/hirebridge\.js";/);
    assert.ok(existsSync(join(out, "contracts", "recruiting", "positions.d.ts")), "contract types ship as declarations");
  });

  test("the built client runs on Node 20 without a TypeScript loader", async (t) => {
    const node20 = ["/usr/bin/node", "/usr/local/bin/node"].find((p) => existsSync(p));
    if (!node20) return t.skip("no system Node to run");
    const { stdout: version } = await run(node20, ["--version"]);
    if (!version.startsWith("v20.")) return t.skip(`system Node is ${version.trim()}, not 20`);
    const script = join(out, "smoke.mjs");
    // A fake identity provider and API behind an injected fetch: login, one call, a typed error.
    await writeFile(
      script,
      `import { Hirebridge, NotFoundError } from "./client/index.js";
const jwt = (c) => ["{}", JSON.stringify(c), "sig"].map((s) => Buffer.from(s).toString("base64url")).join(".");
const now = Math.floor(Date.now() / 1000);
const fetch = async (url, init) => {
  if (url.endsWith("/token")) return Response.json({ access_token: jwt({ exp: now + 300, iat: now }), refresh_token: "r", expires_in: 300, refresh_expires_in: 1800, token_type: "Bearer" });
  if (url.endsWith("/org_id")) return Response.json({ org_id: "o1" });
  return Response.json({ detail: "Position not found" }, { status: 404 });
};
const hb = new Hirebridge({ authUrl: "https://id.example.com/realms/x", apiUrl: "https://api.example.com/api/v1", credentials: { username: "u", password: "p" }, fetch });
console.log(await hb.orgId());
try { await hb.positions.get("p1"); } catch (e) { console.log(e instanceof NotFoundError, e.message); }
`,
    );
    const { stdout } = await run(node20, [script], { cwd: out });
    assert.equal(stdout, "o1\ntrue GET /api/v1/org/o1/position/p1 failed with 404: Position not found\n");
  });
});
