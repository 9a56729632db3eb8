/**
 * `npm run bench -- footprint [--runs 5] [--smoke]`
 *
 * What a process costs before it serves anything, and how long a CLI command takes:
 * - idle RSS of `serve api` on Postgres, started as production starts it (the `start` script of
 *   package.json with `serve api` for `serve all`; a fresh schema of BENCH_DATABASE_URL, default the
 *   local `test` database, dropped after) once /healthz answers, and its peak after a short burst;
 * - `npm start` as a user runs it (the `start` script of package.json, as npm runs it): every
 *   process it starts (the shell npm would use is left out) with its RSS, idle and after the
 *   burst, and their sum; then the same with PGLITE_WASM_COMPILER=baseline (on the database the
 *   first start created);
 * - wall time of `hirebridge --help`, `hirebridge positions --help` and `hirebridge positions list`
 *   (logged in as the demo user, against the `npm start` stack) through bin/hirebridge.js as the
 *   installed bin runs, median of `--runs`, against `node -e 0` on the same machine.
 * When package.json has a `build` script it runs first (as `npm start`'s prestart does).
 * Every port is a free one, DATA_DIR a temp directory; everything stops by itself.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { dropSchemas } from "../src/shared/db/pg-schemas.js";
import { buildOnce, freePort, machine, median, memoryOf, option, processMs, ROOT, settings, stopper, waitHealthy } from "./lib.js";

/** Every descendant of `pid` (children first found through /proc/<pid>/task/<pid>/children or a /proc scan). */
function descendants(pid: number): number[] {
  const parent = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      parent.set(Number(entry), Number(readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1]!.split(" ")[1]));
    } catch {
      // gone meanwhile
    }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const [child, pp] of parent) {
      if (pp !== p) continue;
      out.push(child);
      walk(child);
    }
  };
  walk(pid);
  return out;
}

const commandOf = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8")
      .split("\0")
      .filter(Boolean)
      .map((a) => a.replace(ROOT, ""))
      .join(" ")
      .slice(0, 80);
  } catch {
    return "?";
  }
};

type Started = { child: ChildProcess; stop(): Promise<void> };

function start(command: string, args: string[], env: Record<string, string>): Started {
  const child = spawn(command, args, { cwd: ROOT, env, stdio: ["ignore", "ignore", "inherit"], detached: true });
  // The whole process group: a wrapper and what it started.
  return { child, stop: stopper(child, (signal) => process.kill(-child.pid!, signal)) };
}

async function burst(url: string, n: number): Promise<void> {
  for (let i = 0; i < n; i += 10) await Promise.all(Array.from({ length: 10 }, () => fetch(url).then((r) => r.arrayBuffer())));
}

/**
 * Wall time of CLI commands, median of `runs`, against `node -e 0`: `--help` (nothing but the
 * command tree) and `positions list` against the running stack after `hirebridge login` as the demo
 * user (the session file under HOME, as a user has it). A command that fails fails the bench.
 */
async function cliWallTimes(stackEnv: Record<string, string>, home: string, runs: number): Promise<string[]> {
  const env = {
    PATH: stackEnv["PATH"]!,
    HOME: home,
    NODE_NO_WARNINGS: "1",
    HIREBRIDGE_AUTH_URL: `http://127.0.0.1:${stackEnv["AUTH_PORT"]}/realms/hirebridge`,
    HIREBRIDGE_API_URL: `http://127.0.0.1:${stackEnv["API_PORT"]}/api/v1`,
    HIREBRIDGE_PROXY_URL: `http://127.0.0.1:${stackEnv["PROXY_PORT"]}/api/v1`,
  };
  await processMs(["bin/hirebridge.js", "login", "--username", "demo"], { ...env, HIREBRIDGE_PASSWORD: "demo-password" });
  const cases = [
    { name: "`node -e 0` (floor)", args: ["-e", "0"] },
    { name: "`hirebridge --help`", args: ["bin/hirebridge.js", "--help"] },
    { name: "`hirebridge positions --help`", args: ["bin/hirebridge.js", "positions", "--help"] },
    { name: "`hirebridge positions list` (logged in, against `npm start`)", args: ["bin/hirebridge.js", "positions", "list"] },
  ];
  await processMs(cases[3]!.args, env); // warm the file cache and the server's first answer
  const times = new Map(cases.map((c) => [c.name, [] as number[]]));
  for (let i = 0; i < runs; i++) for (const c of cases) times.get(c.name)!.push(await processMs(c.args, env));
  return [
    `| CLI command | wall ms (median of ${runs}) |`,
    "|---|---:|",
    ...cases.map((c) => `| ${c.name} | ${median(times.get(c.name)!).toFixed(0)} |`),
    "",
  ];
}

export async function main(args: string[]): Promise<void> {
  const { smoke } = settings(args, { rounds: 1, duration: 1, connections: 1 });
  const runs = Number(option(args, "runs", smoke ? "1" : "5"));
  const dbUrl = process.env["BENCH_DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";
  const dataDir = mkdtempSync(join(tmpdir(), "hirebridge-footprint-"));
  const schemas: string[] = [];
  const lines = [`Footprint: ${machine()}`, ""];
  const baseEnv = async (): Promise<Record<string, string>> => ({
    PATH: `${join(ROOT, "node_modules/.bin")}:${process.env["PATH"] ?? ""}`,
    HOME: dataDir,
    HOST: "127.0.0.1",
    LOG_LEVEL: "warn",
    NODE_NO_WARNINGS: "1",
    DATA_DIR: dataDir,
    API_PORT: String(await freePort()),
    AUTH_PORT: String(await freePort()),
    PROXY_PORT: String(await freePort()),
    SANDBOX_PORT: String(await freePort()),
  });
  const scripts = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;
  const script = scripts["start"]!;
  buildOnce();
  try {
    // serve api on Postgres, then the whole npm start (PGlite), each as its script starts it.
    const apiEnv = await baseEnv();
    const schema = `bench_fp_${randomBytes(4).toString("hex")}`;
    schemas.push(schema);
    Object.assign(apiEnv, {
      DATABASE_URL: dbUrl,
      DATABASE_SCHEMA: schema,
      AUTH_JWKS_URL: `http://127.0.0.1:${apiEnv["AUTH_PORT"]}/unused`,
    });
    const allEnv: Record<string, string> = { ...(await baseEnv()), WORKERS: "true" };
    const stacks = [
      {
        title: "`serve api` (Postgres), as `npm start` runs",
        command: script.replace(/serve all$/, "serve api"),
        env: apiEnv,
        health: ["API_PORT"],
      },
      { title: "`npm start`, PGlite", command: script, env: allEnv, health: ["API_PORT", "PROXY_PORT"], cli: true },
      {
        title: "`npm start`, PGlite, `PGLITE_WASM_COMPILER=baseline`",
        command: script,
        env: { ...(await baseEnv()), WORKERS: "true", PGLITE_WASM_COMPILER: "baseline" },
        health: ["API_PORT", "PROXY_PORT"],
      },
    ];
    const cliLines: string[] = [];
    for (const run of stacks) {
      const stack = start("sh", ["-c", `exec ${run.command}`], run.env);
      try {
        for (const port of run.health) await waitHealthy(`http://127.0.0.1:${run.env[port]}/healthz`, stack.child);
        await new Promise((r) => setTimeout(r, 2000)); // let start-up garbage be collected
        const pids = [stack.child.pid!, ...descendants(stack.child.pid!)];
        const idle = new Map(pids.map((p) => [p, memoryOf(p)?.rssMb ?? 0]));
        await burst(`http://127.0.0.1:${run.env["API_PORT"]}/healthz`, smoke ? 50 : 2000);
        const peak = new Map(pids.map((p) => [p, memoryOf(p)?.peakMb ?? 0]));
        const sum = (m: Map<number, number>) => [...m.values()].reduce((a, b) => a + b, 0);
        lines.push(
          `| ${run.title}: \`${run.command}\` | idle RSS MB | peak RSS MB |`,
          "|---|---:|---:|",
          ...pids.map((p) => `| ${commandOf(p)} | ${idle.get(p)!.toFixed(0)} | ${peak.get(p)!.toFixed(0)} |`),
          `| **all ${pids.length} process${pids.length > 1 ? "es" : ""}** | **${sum(idle).toFixed(0)}** | **${sum(peak).toFixed(0)}** |`,
          "",
        );
        // The CLI against this stack, logged in as the demo user, as a person would run it.
        if (run.cli) cliLines.push(...(await cliWallTimes(run.env, dataDir, runs)));
      } finally {
        await stack.stop();
      }
    }
    lines.push(...cliLines);
    process.stdout.write(`${lines.join("\n")}\n`);
  } finally {
    for (const schema of schemas) await dropSchemas(dbUrl, schema);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
