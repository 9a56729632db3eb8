/** Pieces every benchmark shares: autocannon, free ports, readiness, child servers, statistics, memory. */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { fileURLToPath } from "node:url";

export type AutocannonResult = {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; average: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  "2xx": number;
  statusCodeStats?: Record<string, { count: number }>;
};
const autocannonModule = "autocannon"; // untyped package: loaded dynamically
export const autocannon = ((await import(autocannonModule)) as { default: (o: Record<string, unknown>) => Promise<AutocannonResult> })
  .default;

export const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** The demo organisation (DEMO_ORG_ID's default in the run contract) the benches' servers seed. */
export const DEMO_ORG = "6d3f1e2a-9b4c-4f7e-8a1d-2c5b7e9f0a13";

/** An access token of the demo user, by the password grant at the token service `authUrl` (…/realms/hirebridge). */
export async function demoToken(authUrl: string): Promise<string> {
  const res = await fetch(`${authUrl}/protocol/openid-connect/token`, {
    method: "POST",
    body: new URLSearchParams({
      grant_type: "password",
      client_id: "hirebridge",
      username: "demo",
      password: process.env["DEMO_PASSWORD"] ?? "demo-password",
    }),
  });
  if (!res.ok) throw new Error(`demo login: expected 200, got ${res.status}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

/** `--name value` or `--name=value`; `fallback` when absent. */
export function option(args: string[], name: string, fallback: string): string {
  const i = args.indexOf(`--${name}`);
  if (i >= 0 && args[i + 1]) return args[i + 1]!;
  const joined = args.find((a) => a.startsWith(`--${name}=`));
  return joined ? joined.slice(name.length + 3) : fallback;
}

/**
 * How long and how often a benchmark measures. `--smoke` (what `npm test` runs, see
 * test/integration/bench/smoke.test.ts) is one round of about a second per scenario with a short
 * warm-up: not a measurement, a proof that the benchmark still runs end to end and that every
 * answer is the one it expects. Explicit `--rounds`/`--duration`/`--connections` win over both.
 */
export type Settings = { smoke: boolean; rounds: number; duration: number; connections: number; warmup: number };
export function settings(args: string[], defaults: { rounds: number; duration: number; connections: number; warmup?: number }): Settings {
  const smoke = args.includes("--smoke");
  const num = (name: string, normal: number, short: number) => Number(option(args, name, String(smoke ? short : normal)));
  return {
    smoke,
    rounds: num("rounds", defaults.rounds, 1),
    duration: num("duration", defaults.duration, 1),
    connections: num("connections", defaults.connections, Math.min(defaults.connections, 4)),
    warmup: num("warmup", defaults.warmup ?? 2, 1),
  };
}

/**
 * Throws unless every answer of a load run had the expected status: any 2xx by default, or exactly
 * `status` when the scenario asks for one (a 429 from a rate limit is never a silent success).
 */
export function assertAnswers(name: string, r: AutocannonResult, status?: number): void {
  const codes = Object.entries(r.statusCodeStats ?? {}).filter(([, s]) => s.count > 0);
  const unexpected = codes.filter(([code]) => (status === undefined ? !code.startsWith("2") : Number(code) !== status));
  if (r.errors || r.timeouts || unexpected.length || (status === undefined && r.non2xx)) {
    const got = codes.map(([code, s]) => `${s.count} × ${code}`).join(", ") || "no answers";
    throw new Error(`${name}: expected ${status ?? "2xx"} only; got ${got}, ${r.errors} errors, ${r.timeouts} timeouts`);
  }
}

/** CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat; 0 where it cannot be read. */
export function cpuSeconds(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime (fields 14, 15) in clock ticks (USER_HZ)
  } catch {
    return 0;
  }
}

/** Resident memory of a process now and at its peak (VmRSS / VmHWM from /proc), in MB; undefined off Linux. */
export function memoryOf(pid: number | undefined): { rssMb: number; peakMb: number } | undefined {
  if (!pid) return undefined;
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
    const rssMb = kb("VmRSS") / 1024;
    // A process that has exited but not been reaped yet (a zombie) still has a status file, without
    // memory lines: it holds no memory, and a NaN would poison every Math.max it reaches.
    if (Number.isNaN(rssMb)) return undefined;
    return { rssMb, peakMb: kb("VmHWM") / 1024 };
  } catch {
    return undefined;
  }
}

/**
 * Idle RSS (taken once the process is up, before any load) and peak RSS (its high-water mark at the
 * end of the run) of each process, as markdown lines.
 */
export class MemoryReport {
  private readonly rows: { name: string; pid: number | undefined; idleMb: number | undefined; peakMb?: number | undefined }[] = [];
  /** Call once the process is up and before any load. */
  idle(name: string, pid: number | undefined): void {
    this.rows.push({ name, pid, idleMb: memoryOf(pid)?.rssMb });
  }
  /** Call after the load and before stopping the processes: takes their high-water marks. */
  peaks(): void {
    for (const r of this.rows) r.peakMb ??= memoryOf(r.pid)?.peakMb;
  }
  lines(): string[] {
    this.peaks();
    const mb = (x: number | undefined) => (x === undefined || Number.isNaN(x) ? "n/a" : x.toFixed(0));
    return [
      "| process | idle RSS MB | peak RSS MB |",
      "|---|---:|---:|",
      ...this.rows.map((r) => `| ${r.name} | ${mb(r.idleMb)} | ${mb(r.peakMb)} |`),
    ];
  }
}

/** Wall time of one run of `node <args>` from ROOT, in ms; throws when it exits non-zero. */
export function processMs(args: string[], env: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0 ? resolve(performance.now() - started) : reject(new Error(`node ${args.join(" ")} exited ${code}: ${stderr}`)),
    );
  });
}

export { freePort } from "../test/helpers/ports.js";

export async function waitHealthy(url: string, child?: ChildProcess, timeoutMs = 180_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child && child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    if (
      await fetch(url).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} not healthy in time`);
}

/**
 * Node flags that make a served child write a V8 CPU profile when it exits, into the directory
 * `BENCH_CPU_PROF_DIR` names (Node refuses `--cpu-prof` in NODE_OPTIONS); none without it.
 */
export function profileFlags(): string[] {
  const dir = process.env["BENCH_CPU_PROF_DIR"];
  return dir ? ["--cpu-prof", `--cpu-prof-dir=${dir}`] : [];
}

const packageScripts = (): Record<string, string> =>
  (JSON.parse(readFileSync(`${ROOT}/package.json`, "utf8")) as { scripts: Record<string, string> }).scripts;

/**
 * The Node flags production runs with: those of package.json's `start` script
 * (`node <flags> dist/cli/main.js serve all`), so a bench that measures memory runs what ships.
 */
export function productionNodeFlags(): string[] {
  const words = packageScripts()["start"]?.split(/\s+/) ?? [];
  return words[0] === "node" ? words.slice(1).filter((w) => w.startsWith("--")) : [];
}

let built = false;
/** Builds the compiled runtime (dist/) once per bench process, as `npm start`'s prestart does. */
export function buildOnce(): void {
  if (built || !packageScripts()["build"]) return;
  execFileSync("npm", ["run", "build", "--silent"], { cwd: ROOT, stdio: "inherit" });
  built = true;
}

/**
 * `hirebridge serve <services>` in a child process with `env` (and Node `flags`); stopped with
 * SIGTERM (it drains). `compiled`: the built JavaScript (dist/, see buildOnce) as production runs
 * it, instead of the sources through tsx.
 */
export function serveChild(
  services: string[],
  env: Record<string, string>,
  flags: string[] = [],
  opts: { compiled?: boolean } = {},
): { child: ChildProcess; stop(): Promise<void> } {
  const entry = opts.compiled ? ["dist/cli/main.js"] : ["--import", "tsx", "src/cli/main.ts"];
  const child = spawn(process.execPath, [...profileFlags(), ...flags, ...entry, "serve", ...services], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: "warn", NODE_NO_WARNINGS: "1", ...env },
    stdio: ["ignore", "ignore", "inherit"],
  });
  return { child, stop: stopper(child) };
}

/** Stops `child` with SIGTERM (SIGKILL after 15 s) through `kill`, resolving once it exited. */
export function stopper(child: ChildProcess, kill: (signal: NodeJS.Signals) => void = (signal) => child.kill(signal)): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once("exit", () => resolve());
      kill("SIGTERM");
      setTimeout(() => child.exitCode === null && kill("SIGKILL"), 15_000).unref();
    });
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;

export function machine(): string {
  const cpu = cpus();
  return `${cpu.length} × ${cpu[0]?.model.trim() ?? "cpu"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`;
}

/**
 * Node flags for the processes of our hop under test: `--import bench/slow-hop.mjs` when
 * BENCH_SLOW_HOP_US is set (a CPU spin before each request, to show the CI guard failing; see
 * bench/guard.ts), none otherwise. Never given to a floor or to the upstream.
 */
export function slowHopFlags(): string[] {
  return Number(process.env["BENCH_SLOW_HOP_US"] ?? 0) > 0 ? ["--import", `${ROOT}bench/slow-hop.mjs`] : [];
}

/**
 * The environment of a stack of `serve` processes sharing one Postgres schema and Redis, with the
 * token service and the sandbox on their ports and every rate limit off (one client address sends
 * everything; the limits would measure themselves).
 */
export function sharedStackEnv(o: { databaseUrl: string; schema: string; dataDir: string; authPort: number; sandboxPort: number }) {
  return {
    HOST: "127.0.0.1",
    DATA_DIR: o.dataDir,
    DATABASE_URL: o.databaseUrl,
    DATABASE_SCHEMA: o.schema,
    REDIS_URL: process.env["BENCH_REDIS_URL"] ?? "redis://127.0.0.1:6379",
    AUTH_PORT: String(o.authPort),
    SANDBOX_PORT: String(o.sandboxPort),
    AUTH_ISSUER: `http://127.0.0.1:${o.authPort}/realms/hirebridge`,
    UPSTREAM_BASE_URL: `http://127.0.0.1:${o.sandboxPort}/v1`,
    RATE_LIMIT_PER_MINUTE: "0",
    RATE_LIMIT_ORG_PER_MINUTE: "0",
    TOKEN_RATE_LIMIT_PER_MINUTE: "0",
  };
}
