import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { after, before, describe, test } from "node:test";
import { startEmbeddedStack, type EmbeddedStack } from "./embedded-stack.js";

const run = promisify(execFile);
const ROOT = resolve(fileURLToPath(new URL("../../..", import.meta.url)));

/** The fenced blocks of a doc that are marked `<!-- doc-test -->`, in order (read at load: one test each). */
function docBlocks(doc: string, lang: "ts" | "sh"): { doc: string; index: number; code: string }[] {
  const text = readFileSync(join(ROOT, doc), "utf8");
  return [...text.matchAll(new RegExp(`<!-- doc-test -->\\n\`\`\`${lang}\\n([\\s\\S]*?)\\n\`\`\`\\n`, "g"))].map((m, index) => ({
    doc,
    index,
    code: m[1]!,
  }));
}
// The README gets its SDK and CLI sections from these docs; blocks marked there are run too. The
// quickstart is the whole product loop (token, sync, positions, stage mapping, result, write-back).
const SDK_EXAMPLES = [...docBlocks("docs/sdk.md", "ts"), ...docBlocks("README.md", "ts")];
const CLI_EXAMPLES = [...docBlocks("docs/quickstart.md", "sh"), ...docBlocks("docs/cli.md", "sh"), ...docBlocks("README.md", "sh")];

/**
 * Runs the examples of docs/quickstart.md, docs/sdk.md and docs/cli.md exactly as written, against the embedded stack.
 * The only change: the run contract's fixed ports (what `npm start` listens on) become the stack's.
 */
describe("docs examples run against the embedded stack", () => {
  let env: EmbeddedStack;
  let localize: (code: string) => string;
  // Inside the package (so `hirebridge/client` resolves by self-reference) but git-ignored.
  const docDir = join(ROOT, "dist", ".doc-tests", String(process.pid));
  let shellDir: string;

  before(async () => {
    env = await startEmbeddedStack();
    const ports: [string, string][] = [
      ["http://127.0.0.1:8080", new URL(env.authUrl).origin],
      ["http://127.0.0.1:8001", new URL(env.apiUrl).origin],
      ["http://127.0.0.1:8000", new URL(env.proxyUrl).origin],
      ["http://127.0.0.1:8090", env.sandboxOrigin],
    ];
    localize = (code) => ports.reduce((c, [from, to]) => c.replaceAll(from, to), code);
    await mkdir(docDir, { recursive: true });
    shellDir = await mkdtemp(join(tmpdir(), "hirebridge-doc-cli-"));
    // `hirebridge` on PATH, as `npm link`/`npx` would provide it.
    await mkdir(join(shellDir, "bin"));
    await writeFile(
      join(shellDir, "bin", "hirebridge"),
      `#!/bin/sh\nexec "${process.execPath}" "${join(ROOT, "bin", "hirebridge.js")}" "$@"\n`,
    );
    await chmod(join(shellDir, "bin", "hirebridge"), 0o755);
  });
  after(async () => {
    await rm(docDir, { recursive: true, force: true });
    await rm(shellDir, { recursive: true, force: true });
    await env.close();
  });

  test("docs/sdk.md, docs/cli.md and docs/quickstart.md have their examples marked", () => {
    assert.ok(SDK_EXAMPLES.filter((e) => e.doc === "docs/sdk.md").length >= 6, "docs/sdk.md examples");
    assert.ok(CLI_EXAMPLES.filter((e) => e.doc === "docs/cli.md").length >= 5, "docs/cli.md examples");
    assert.ok(CLI_EXAMPLES.filter((e) => e.doc === "docs/quickstart.md").length >= 7, "docs/quickstart.md steps");
  });

  test("docs/sdk.md: every marked example type-checks", async () => {
    const files = await Promise.all(
      SDK_EXAMPLES.map(async ({ code }, i) => {
        const file = join(docDir, `sdk-${i}.ts`);
        await writeFile(file, code);
        return file;
      }),
    );
    await writeFile(
      join(docDir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          module: "nodenext",
          moduleResolution: "nodenext",
          target: "es2023",
          lib: ["es2023", "dom"],
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: [],
        },
        files,
      }),
    );
    await run(process.execPath, [join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", join(docDir, "tsconfig.json")], {
      cwd: ROOT,
    }).catch((err: { stdout?: string }) => assert.fail(`the examples do not type-check:\n${err.stdout}`));
  });

  for (const [i, { doc, index, code }] of SDK_EXAMPLES.entries()) {
    test(`${doc} example ${index + 1} runs: ${
      code
        .split("\n")
        .find((l) => l.includes("new Hirebridge") || l.includes("new HirebridgeAdmin"))
        ?.trim() ?? ""
    }`, async () => {
      const file = join(docDir, `run-${i}.ts`);
      await writeFile(file, localize(code));
      const res = await run(process.execPath, ["--import", "tsx", file], { cwd: ROOT, env: { PATH: process.env["PATH"] ?? "" } }).catch(
        (err: { stderr?: string }) => assert.fail(`example ${index + 1} of ${doc} failed:\n${err.stderr}\n${code}`),
      );
      assert.equal(res.stderr, "", `example ${index + 1} of ${doc} wrote to stderr`);
    });
  }

  // In order, each block seeing the variables the earlier ones set, as in one terminal session.
  for (const { doc, index, code } of CLI_EXAMPLES) {
    test(`${doc} block ${index + 1} runs: ${code.split("\n")[0]}`, async () => {
      // One shell session per document.
      const state = `state-${doc.replace(/\W/g, "_")}.sh`;
      const script = `set -euo pipefail\ntouch ${state}\nsource ${state}\nset -a\n${localize(code)}\nset +a\nexport -p > ${state}\n`;
      await run("bash", ["-c", script], {
        cwd: shellDir,
        timeout: 110_000,
        env: {
          PATH: `${join(shellDir, "bin")}:${process.env["PATH"] ?? ""}`,
          HOME: shellDir,
          XDG_CONFIG_HOME: join(shellDir, "config"),
          HIREBRIDGE_AUTH_URL: env.authUrl,
          HIREBRIDGE_API_URL: env.apiUrl,
          HIREBRIDGE_PROXY_URL: env.proxyUrl,
        },
      }).catch((err: { stderr?: string; stdout?: string }) =>
        assert.fail(`block ${index + 1} of ${doc} failed:\n${err.stderr}\n--- stdout:\n${err.stdout}\n--- block:\n${code}`),
      );
    });
  }
});
