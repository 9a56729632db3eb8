import { execFile, execFileSync } from "node:child_process";
import { promisify } from "node:util";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./ports.js";

/**
 * A Postgres cluster of a test's own, in a temporary directory on a free port, for tests that stop
 * and start the server (outages). The machine's shared Postgres is never touched. As root the
 * binaries run as the `postgres` user (initdb refuses root). `dispose()` stops it and removes the
 * directory; it also runs at process exit, so a failed test leaves nothing running.
 */
export type ThrowawayPostgres = {
  url: string;
  port: number;
  /** Fast shutdown (clients are disconnected), waiting until it is down. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /**
   * SIGSTOP to the server and every backend: connections stay open and every statement, connect
   * and answer hangs, as with a server that stopped answering (not one that went away).
   */
  freeze(): void;
  /** SIGCONT to the processes `freeze` stopped. */
  thaw(): void;
  dispose(): void;
};

export function postgresBinDir(): string | undefined {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, "bin", "pg_ctl")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], "bin") : undefined;
}

export async function startThrowawayPostgres(): Promise<ThrowawayPostgres> {
  const bin = postgresBinDir();
  if (!bin) throw new Error("no Postgres binaries under /usr/lib/postgresql/*/bin");
  const asRoot = process.getuid?.() === 0;
  const command = (tool: string, args: string[]): [string, string[]] =>
    asRoot ? ["runuser", ["-u", "postgres", "--", join(bin, tool), ...args]] : [join(bin, tool), args];
  const run = (tool: string, args: string[]) => {
    const [file, argv] = command(tool, args);
    execFileSync(file, argv, { stdio: "pipe", timeout: 60_000 });
  };
  const runAsync = async (tool: string, args: string[]) => {
    const [file, argv] = command(tool, args);
    await promisify(execFile)(file, argv, { timeout: 60_000 });
  };
  const dir = mkdtempSync(join(tmpdir(), "hirebridge-pg-"));
  if (asRoot) {
    const uid = Number(execFileSync("id", ["-u", "postgres"]).toString().trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"]).toString().trim());
    chownSync(dir, uid, gid);
  }
  const data = join(dir, "data");
  const port = await freePort();
  run("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"]);
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
  let running = false;
  let frozen: number[] = [];
  const processes = (): number[] => {
    const postmaster = Number(readFileSync(join(data, "postmaster.pid"), "utf8").split("\n")[0]);
    let children: number[] = [];
    try {
      children = execFileSync("pgrep", ["-P", String(postmaster)])
        .toString()
        .trim()
        .split(/\s+/)
        .filter(Boolean)
        .map(Number);
    } catch {
      // pgrep exits 1 when there are none
    }
    return [postmaster, ...children];
  };
  const pg: ThrowawayPostgres = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    async start() {
      running = true;
      await runAsync("pg_ctl", ["-D", data, "-o", opts, "-l", join(dir, "log"), "-w", "-t", "30", "start"]);
    },
    async stop() {
      await runAsync("pg_ctl", ["-D", data, "-m", "fast", "-w", "-t", "30", "stop"]);
      running = false;
    },
    freeze() {
      frozen = processes();
      for (const pid of frozen) process.kill(pid, "SIGSTOP");
    },
    thaw() {
      for (const pid of frozen) {
        try {
          process.kill(pid, "SIGCONT");
        } catch {
          // gone meanwhile
        }
      }
      frozen = [];
    },
    dispose() {
      process.off("exit", pg.dispose);
      if (frozen.length) pg.thaw();
      try {
        if (running) run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "-t", "30", "stop"]);
      } catch {
        // already stopped
      }
      running = false;
      rmSync(dir, { recursive: true, force: true });
    },
  };
  process.on("exit", pg.dispose);
  try {
    await pg.start();
  } catch (err) {
    pg.dispose();
    throw err;
  }
  return pg;
}
