import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { StoredSession } from "../../../src/cli/session-store.js";
import { after, before } from "node:test";
import { startEmbeddedStack, type EmbeddedStack } from "../client/embedded-stack.js";

const ROOT = resolve(fileURLToPath(new URL("../../..", import.meta.url)));
const BIN = join(ROOT, "bin", "hirebridge.js");

export type CliResult = { code: number | null; stdout: string; stderr: string };

/**
 * Runs the real `hirebridge` bin (bin/hirebridge.js, as npm links it) in a child process with a
 * private HOME/XDG_CONFIG_HOME, pointed at the embedded stack. stdin is closed (or carries `stdin`),
 * so a command that would prompt must fail rather than hang.
 */
export class Cli {
  private constructor(
    readonly home: string,
    private readonly baseEnv: Record<string, string>,
  ) {}

  static async create(env: Pick<EmbeddedStack, "authUrl" | "apiUrl" | "proxyUrl">): Promise<Cli> {
    const home = await mkdtemp(join(tmpdir(), "hirebridge-cli-"));
    return new Cli(home, {
      PATH: process.env["PATH"] ?? "",
      HOME: home,
      XDG_CONFIG_HOME: join(home, "config"),
      HIREBRIDGE_AUTH_URL: env.authUrl,
      HIREBRIDGE_API_URL: env.apiUrl,
      HIREBRIDGE_PROXY_URL: env.proxyUrl,
    });
  }

  get sessionFile(): string {
    return join(this.home, "config", "hirebridge", "session.json");
  }

  async session(): Promise<StoredSession> {
    return JSON.parse(await readFile(this.sessionFile, "utf8")) as StoredSession;
  }

  async sessionMode(): Promise<number> {
    return (await stat(this.sessionFile)).mode & 0o777;
  }

  run(args: string[], opts: { stdin?: string; env?: Record<string, string> } = {}): Promise<CliResult> {
    return new Promise((resolvePromise, reject) => {
      const child = spawn(process.execPath, [BIN, ...args], {
        cwd: ROOT,
        env: { ...this.baseEnv, ...opts.env },
        stdio: ["pipe", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
      child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
      child.on("error", reject);
      const timer = setTimeout(() => child.kill("SIGKILL"), 90_000);
      child.on("close", (code) => {
        clearTimeout(timer);
        resolvePromise({ code, stdout, stderr });
      });
      child.stdin.end(opts.stdin ?? "");
    });
  }

  /** Runs with `--json` and parses stdout; fails the test with the CLI's stderr when it did not exit 0. */
  async json<T = unknown>(args: string[], opts: { stdin?: string; env?: Record<string, string> } = {}): Promise<T> {
    const res = await this.run(["--json", ...args], opts);
    if (res.code !== 0) throw new Error(`hirebridge ${args.join(" ")} exited ${res.code}: ${res.stderr}`);
    return JSON.parse(res.stdout) as T;
  }

  async login(username: string, password: string): Promise<void> {
    const res = await this.run(["login", "--username", username, "--password-stdin"], { stdin: `${password}\n` });
    if (res.code !== 0) throw new Error(`login failed: ${res.stderr}`);
  }

  dispose(): Promise<void> {
    return rm(this.home, { recursive: true, force: true });
  }
}

/** A failure is one line on stderr, nothing on stdout. */
export function oneLineError(res: CliResult): string {
  const lines = res.stderr.trimEnd().split("\n");
  if (lines.length !== 1 || !lines[0]!.startsWith("hirebridge: ")) throw new Error(`expected one error line, got: ${res.stderr}`);
  if (res.stdout !== "") throw new Error(`expected no stdout on failure, got: ${res.stdout}`);
  return lines[0]!;
}

/**
 * For a suite: the embedded stack and a CLI logged in as the demo user, started in `before` and
 * torn down in `after`. Read them inside tests (they exist once `before` ran).
 */
export function useDemoCli(): { readonly env: EmbeddedStack; readonly cli: Cli } {
  let env: EmbeddedStack | undefined;
  let cli: Cli | undefined;
  before(async () => {
    env = await startEmbeddedStack();
    cli = await Cli.create(env);
    await cli.login("demo", env.demo.password);
  });
  after(async () => {
    await cli?.dispose();
    await env?.close();
  });
  return {
    get env() {
      if (!env) throw new Error("the stack is not started yet");
      return env;
    },
    get cli() {
      if (!cli) throw new Error("the CLI is not set up yet");
      return cli;
    },
  };
}
