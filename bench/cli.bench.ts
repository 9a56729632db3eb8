/**
 * `npm run bench -- cli [--rounds 5] [--smoke]`
 *
 * How fast the `hirebridge` bin answers without a stack (issue 42: `--help` under 250 ms on the
 * pinned Node). Each command runs as a process from the checkout (`node bin/hirebridge.js …`, as
 * `npx hirebridge` runs it: dist/ when it is current, else the sources through tsx), with a private
 * HOME and COLUMNS=80. Every round runs each command once, in the same order, after one warm-up run
 * of each (the file cache, tsx's transform cache); the table shows the median and the fastest over
 * rounds, and the median over `node -e 0` (the floor: starting Node at all). Every answer is checked
 * (exit code, what stdout must say): an unexpected answer fails the bench. `--smoke` is one round.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { machine, median, option, ROOT } from "./lib.js";

/** The budget the issue sets for `hirebridge --help`. */
const HELP_BUDGET_MS = 250;

const VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;

type Case = { name: string; args: string[]; code: number; check: (stdout: string) => boolean };

/** The top-level commands the root's --help must list (from its light table, no module loaded). */
const COMMANDS = ["login", "positions", "candidates", "integrations", "sync", "webhooks", "activity", "service-accounts", "serve"];

const CASES: Case[] = [
  { name: "`node -e 0` (floor)", args: ["-e", "0"], code: 0, check: (out) => out === "" },
  {
    name: "`hirebridge --help`",
    args: ["bin/hirebridge.js", "--help"],
    code: 0,
    check: (out) => out.startsWith("Usage: hirebridge [options] [command]") && COMMANDS.every((c) => out.includes(`\n  ${c}`)),
  },
  { name: "`hirebridge --version`", args: ["bin/hirebridge.js", "--version"], code: 0, check: (out) => out === `${VERSION}\n` },
  {
    name: "`hirebridge positions --help`",
    args: ["bin/hirebridge.js", "positions", "--help"],
    code: 0,
    check: (out) => out.startsWith("Usage: hirebridge positions") && out.includes("\n  list"),
  },
  {
    name: "`hirebridge candidates list --help`",
    args: ["bin/hirebridge.js", "candidates", "list", "--help"],
    code: 0,
    check: (out) => out.startsWith("Usage: hirebridge candidates list") && out.includes("Examples:"),
  },
  {
    name: "`hirebridge serve --help`",
    args: ["bin/hirebridge.js", "serve", "--help"],
    code: 0,
    check: (out) => out.startsWith("Usage: hirebridge serve"),
  },
  {
    name: "`hirebridge positons` (unknown command, exit 2)",
    args: ["bin/hirebridge.js", "positons"],
    code: 2,
    check: (out) => out === "",
  },
];

/** One run: wall ms; throws on an exit code or a stdout other than the case expects. */
function runOnce(c: Case, env: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, c.args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => {
      const ms = performance.now() - started;
      if (code !== c.code) return reject(new Error(`${c.name}: exit ${code} (expected ${c.code}): ${stderr}`));
      if (!c.check(stdout)) return reject(new Error(`${c.name}: unexpected answer:\n${stdout}`));
      resolve(ms);
    });
  });
}

/** Which code the bin runs (bin/hirebridge.js's own test): the built dist/ when current, else the sources through tsx. */
function binRuns(): string {
  const compiled = join(ROOT, "dist", "cli", "main.js");
  const builtAt = join(ROOT, "dist", ".tsbuildinfo.server");
  if (!existsSync(compiled) || !existsSync(builtAt)) return "the sources through tsx (no build)";
  const built = statSync(builtAt).mtimeMs;
  const src = join(ROOT, "src");
  const stale = readdirSync(src, { recursive: true, encoding: "utf8" }).some(
    (f) => f.endsWith(".ts") && statSync(join(src, f)).mtimeMs > built,
  );
  return stale ? "the sources through tsx (dist/ is older than src/)" : "the compiled dist/";
}

export async function main(args: string[]): Promise<void> {
  const smoke = args.includes("--smoke");
  const rounds = Number(option(args, "rounds", smoke ? "1" : "5"));
  const home = mkdtempSync(join(tmpdir(), "hirebridge-cli-bench-"));
  const env = {
    PATH: `${join(ROOT, "node_modules/.bin")}:${process.env["PATH"] ?? ""}`,
    HOME: home,
    XDG_CONFIG_HOME: join(home, "config"),
    COLUMNS: "80",
    NODE_NO_WARNINGS: "1",
  };
  try {
    for (const c of CASES) await runOnce(c, env); // warm-up, checked too
    const times = new Map(CASES.map((c) => [c.name, [] as number[]]));
    for (let r = 0; r < rounds; r++) for (const c of CASES) times.get(c.name)!.push(await runOnce(c, env));
    const floor = median(times.get(CASES[0]!.name)!);
    const help = median(times.get("`hirebridge --help`")!);
    const lines = [
      `CLI start: ${machine()}, the bin runs ${binRuns()}; ${rounds} round(s)`,
      "",
      `| command | median ms | fastest ms | over node -e 0 ms |`,
      "|---|---:|---:|---:|",
      ...CASES.map((c) => {
        const xs = times.get(c.name)!;
        return `| ${c.name} | ${median(xs).toFixed(0)} | ${Math.min(...xs).toFixed(0)} | ${(median(xs) - floor).toFixed(0)} |`;
      }),
      "",
      `\`hirebridge --help\`: ${help.toFixed(0)} ms, ${help <= HELP_BUDGET_MS ? "within" : "OVER"} the ${HELP_BUDGET_MS} ms budget`,
    ];
    process.stdout.write(`${lines.join("\n")}\n`);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
