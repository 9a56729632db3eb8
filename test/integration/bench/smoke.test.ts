/**
 * Every benchmark in its smoke mode (`--smoke`: one round of about a second per scenario, each
 * answer checked against the one the scenario expects): a benchmark broken by a change to the
 * services, their limits or their answers fails here instead of rotting until someone measures.
 * The figures are not looked at; the markdown table at the end of the output is.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

function runBench(name: string, extra: string[] = []): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "bench/run.ts", name, "--smoke", ...extra], {
      cwd: ROOT,
      env: { ...process.env, NODE_NO_WARNINGS: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

/** The benchmarks and the lines their output must carry (a table row per scenario, the memory table). */
const BENCHES: { name: string; args?: string[]; expect: RegExp[] }[] = [
  {
    name: "token",
    expect: [
      /\| refresh grant \(rotating\) \| \d+/,
      /\| no-op route, bearer verified \| \d+/,
      /\| token service \+ no-op API \(pglite\) \| \d+ \| \d+ \|/,
    ],
  },
  {
    name: "token",
    args: ["--db=postgres"],
    expect: [/\| password grant \| \d+/, /\| token service \+ no-op API \(postgres\) \| \d+ \| \d+ \|/],
  },
  {
    name: "recruiting",
    expect: [
      /\| postgres \| GET 100 candidates \| \d+/,
      /\| pglite \| POST candidate \(create\) \| \d+/,
      /\| serve token api \(postgres\) \| \d+ \| \d+ \|/,
    ],
  },
  { name: "sandbox", expect: [/\| jobs, first page of 250 \| \d+/, /\| sandbox \(2,000 applications\) \| \d+ \| \d+ \|/] },
  {
    name: "footprint",
    expect: [
      /\| `serve api` \(Postgres\), as `npm start` runs: `[^`]+` \| idle RSS MB \|/,
      /\| \*\*all \d+ process(es)?\*\* \| \*\*\d+\*\* \|/,
      /\| `hirebridge --help` \| \d+ \|/,
    ],
  },
  {
    name: "sync",
    expect: [
      /\| postgres \| [\d.]+ \| [\d.]+ \| [\d.]+ \| [\d.]+ \|/,
      /\| pglite \| 100 \| \d+ \| \d+ \| [\d.]+ \| [\d.]+ \|/,
      /\| postgres \| \d+ \| \d+ \| [\d.]+ \| \d+ \| \d+ \| \d+ \| 0 \|/,
    ],
  },
  {
    name: "proxy",
    args: ["--load", "autocannon"],
    expect: [/\| Hirebridge proxy \(JWT\) \| \d+/, /\| serve token proxy \(postgres\) \| \d+ \| \d+ \|/],
  },
];

for (const bench of BENCHES) {
  test(`bench ${[bench.name, ...(bench.args ?? [])].join(" ")} runs in smoke mode and gets only the answers it expects`, {
    timeout: 300_000,
  }, async () => {
    const { code, stdout, stderr } = await runBench(bench.name, bench.args);
    assert.equal(code, 0, `exit ${code}\n${stdout}\n${stderr}`);
    for (const line of bench.expect) assert.match(stdout, line);
  });
}
