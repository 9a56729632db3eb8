/**
 * What a browser test of the console needs: the stack on free ports and a temporary DATA_DIR (the
 * console built first, as prestart does), Debian's headless `chromium` driven by playwright-core
 * (nothing downloaded), the sign-in through the token service's login page, axe-core, screenshots,
 * and the watch that fails a test on any console error, failed request or error answer it did not
 * cause. `E2E_PORT_BASE` (say 5800) pins the five ports to base..base+4 instead of free ones (and a
 * test's own servers to base+5 on, `extraPort`).
 */
import assert from "node:assert/strict";
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { chromium, type Browser, type Page } from "playwright-core";
import { freePort } from "../helpers/ports.js";

const CHROMIUM = process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium";
export const ROOT = resolve(import.meta.dirname, "..", "..");
const AXE = join(ROOT, "node_modules", "axe-core", "axe.min.js");

export type Ports = { proxy: number; api: number; console: number; auth: number; sandbox: number };
export const origin = (port: number) => `http://127.0.0.1:${port}`;

export type ConsoleStack = {
  ports: Ports;
  consoleUrl: string;
  authUrl: string;
  browser: Browser;
  shotsDir: string;
  /** Every problem `watch` saw (console errors, failed requests, answers >= 400 not expected). */
  problems: string[];
  close: () => Promise<void>;
};

/** A port for a test's own server (a webhook receiver): `E2E_PORT_BASE` + `offset` when pinned, else 0 (any). */
export const extraPort = (offset: number): number => {
  const base = Number(process.env["E2E_PORT_BASE"] ?? "");
  return Number.isInteger(base) && base > 0 ? base + offset : 0;
};

export async function pickPorts(): Promise<Ports> {
  const base = Number(process.env["E2E_PORT_BASE"] ?? "");
  if (Number.isInteger(base) && base > 0) return { proxy: base, api: base + 1, console: base + 2, auth: base + 3, sandbox: base + 4 };
  return { proxy: await freePort(), api: await freePort(), console: await freePort(), auth: await freePort(), sandbox: await freePort() };
}

/** The run contract's variables pointed at `ports` and `dataDir`, over this process's environment. */
export function stackEnv(ports: Ports, dataDir: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    HOST: "127.0.0.1",
    PROXY_PORT: String(ports.proxy),
    API_PORT: String(ports.api),
    CONSOLE_PORT: String(ports.console),
    AUTH_PORT: String(ports.auth),
    SANDBOX_PORT: String(ports.sandbox),
    DATA_DIR: dataDir,
    LOG_LEVEL: "warn",
    PASSWORD_HASH_SCRYPT_N: "1024",
  };
}

/** Builds the console, starts `serve all` with `env` added, and a headless Chromium. */
export async function startConsoleStack(name: string, env: Record<string, string> = {}): Promise<ConsoleStack> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (.ci/run does)`);
  const shotsDir = join(ROOT, "test-results", name);
  await rm(shotsDir, { recursive: true, force: true });
  await mkdir(shotsDir, { recursive: true });
  await promisify(execFile)("npm", ["run", "--silent", "build:console"], { cwd: ROOT });
  const dataDir = await mkdtemp(join(tmpdir(), `hirebridge-${name}-`));
  const ports = await pickPorts();
  const server: ChildProcess = spawn(process.execPath, ["--import", "tsx", "src/cli/main.ts", "serve", "all"], {
    cwd: ROOT,
    env: { ...stackEnv(ports, dataDir), ...env },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  server.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  server.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  const stop = async () => {
    if (server.pid && server.exitCode === null) {
      try {
        process.kill(-server.pid, "SIGTERM");
      } catch {
        // already gone
      }
      await new Promise((r) => (server.exitCode !== null ? r(null) : server.once("exit", r)));
    }
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    const deadline = Date.now() + 200_000;
    while (!out.includes("Hirebridge is running.")) {
      if (server.exitCode !== null) throw new Error(`serve all exited ${server.exitCode}:\n${out}`);
      if (Date.now() > deadline) throw new Error(`serve all did not come up:\n${out}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--no-first-run",
        "--disable-sync",
      ],
    });
    return {
      ports,
      consoleUrl: origin(ports.console),
      authUrl: `${origin(ports.auth)}/realms/hirebridge`,
      browser,
      shotsDir,
      problems: [],
      close: async () => {
        await browser.close();
        await stop();
      },
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Records on `stack.problems` what goes wrong on `p` that the test did not cause (`expected` answers excepted). */
export function watch(stack: ConsoleStack, p: Page, expected: (status: number, url: string) => boolean = () => false): void {
  p.on("console", (msg) => {
    if (msg.type() === "error") stack.problems.push(`console error on ${p.url()}: ${msg.text()}`);
  });
  p.on("pageerror", (err) => stack.problems.push(`page error on ${p.url()}: ${err.message}`));
  p.on("requestfailed", (req) => {
    if (req.failure()?.errorText === "net::ERR_ABORTED") return; // navigating away aborts the old page's polling
    stack.problems.push(`request failed: ${req.method()} ${req.url()} ${req.failure()?.errorText}`);
  });
  p.on("response", (res) => {
    if (res.status() >= 400 && !expected(res.status(), res.url()))
      stack.problems.push(`${res.status()} from ${res.request().method()} ${res.url()}`);
  });
}

/** axe-core on the page's own document (a cross-origin frame's page is not ours to judge); serious or critical fails. */
export async function accessible(p: Page, label: string): Promise<void> {
  // Evaluated through the DevTools protocol: the page's CSP (rightly) refuses an injected script tag.
  if (!(await p.evaluate(() => "axe" in window))) await p.evaluate(`${await readFile(AXE, "utf8")}\n;void 0`);
  const violations = await p.evaluate(async () => {
    type Axe = {
      run: (
        ctx: unknown,
        opts: unknown,
      ) => Promise<{ violations: { id: string; impact: string; help: string; nodes: { target: unknown }[] }[] }>;
    };
    const result = await (window as unknown as { axe: Axe }).axe.run(document, { iframes: false, resultTypes: ["violations"] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.map((n) => JSON.stringify(n.target)).slice(0, 3),
    }));
  });
  const serious = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  assert.deepEqual(serious, [], `${label}: accessibility violations`);
}

/** Signs in on the token service's login page (the console's Sign in already clicked, or a redirect to it under way). */
export async function passwordSignIn(stack: ConsoleStack, p: Page): Promise<void> {
  await p.waitForURL(`${stack.authUrl}/protocol/openid-connect/auth?**`);
  await p.getByLabel("Username or email").fill("demo");
  await p.getByLabel("Password").fill("demo-password");
  await p.getByRole("button", { name: "Sign in" }).click();
  await p.waitForURL(`${stack.consoleUrl}/**`);
}
