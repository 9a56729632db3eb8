/** Pieces every benchmark shares: autocannon, free ports, readiness, child servers, statistics. */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { cpus, totalmem } from "node:os";
import { fileURLToPath } from "node:url";

export type AutocannonResult = {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; average: number };
  non2xx: number;
  errors: number;
  timeouts: number;
};
const autocannonModule = "autocannon"; // untyped package: loaded dynamically
export const autocannon = ((await import(autocannonModule)) as { default: (o: Record<string, unknown>) => Promise<AutocannonResult> }).default;

export const ROOT = fileURLToPath(new URL("..", import.meta.url));

export function option(args: string[], name: string, fallback: string): string {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1]! : fallback;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer().once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === "object" && addr ? resolve(addr.port) : reject(new Error("no port"))));
    });
  });
}

export async function waitHealthy(url: string, child?: ChildProcess, timeoutMs = 180_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child && child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    if (await fetch(url).then((r) => r.ok, () => false)) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} not healthy in time`);
}

/** `hirebridge serve <services>` in a child process with `env`; stopped with SIGTERM (it drains). */
export function serveChild(services: string[], env: Record<string, string>): { child: ChildProcess; stop(): Promise<void> } {
  const child = spawn(process.execPath, ["--import", "tsx", "src/cli/main.ts", "serve", ...services], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: "warn", NODE_NO_WARNINGS: "1", ...env },
    stdio: ["ignore", "ignore", "inherit"],
  });
  return {
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
        setTimeout(() => child.kill("SIGKILL"), 15_000).unref();
      }),
  };
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;

export function machine(): string {
  const cpu = cpus();
  return `${cpu.length} × ${cpu[0]?.model.trim() ?? "cpu"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`;
}
