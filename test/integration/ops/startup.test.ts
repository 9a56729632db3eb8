/**
 * Start-up that says what to fix, before it builds, opens storage or migrates anything: a busy port
 * names its service, its variable and the likely cause; a data directory another live Hirebridge
 * process holds names that process; unreachable storage names DATABASE_URL or REDIS_URL; and the CLI's
 * `reset`, run from anywhere, finds the data where the stack keeps it. Real processes, as people run them.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, test } from "node:test";
import { freePort } from "../../helpers/ports.js";

const ROOT = resolve(import.meta.dirname, "..", "..", "..");
const NODE = join(ROOT, "node_modules", "node", "bin", "node");

type Exit = { code: number | null; stdout: string; stderr: string };

/** Runs `command` to its end (the stack's commands here fail fast, or are stopped by `until`). */
function runUntil(command: string, args: string[], opts: { env?: Record<string, string>; cwd?: string; until?: RegExp } = {}) {
  const child = spawn(command, args, {
    cwd: opts.cwd ?? ROOT,
    env: { ...process.env, LOG_LEVEL: "warn", PATH: `${join(ROOT, "node_modules", ".bin")}:${process.env["PATH"]}`, ...opts.env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let stdout = "";
  let stderr = "";
  return new Promise<Exit>((done) => {
    const check = () => {
      if (opts.until?.test(stdout + stderr)) process.kill(-child.pid!, "SIGTERM");
    };
    child.stdout.on("data", (d: Buffer) => {
      stdout += d;
      check();
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr += d;
      check();
    });
    child.once("exit", (code) => done({ code, stdout, stderr }));
  });
}
const hirebridge = (args: string[], opts: Parameters<typeof runUntil>[2] = {}) =>
  runUntil(NODE, ["--import", "tsx", join(ROOT, "src", "cli", "main.ts"), ...args], opts);

let dataDir: string;
let busy: Server;
let busyPort: number;
before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "hirebridge-startup-"));
  busyPort = await freePort();
  busy = createServer();
  await new Promise<void>((r) => busy.listen(busyPort, "127.0.0.1", r));
});
after(async () => {
  busy.close();
  await rm(dataDir, { recursive: true, force: true });
});

test("a busy port: the service, its variable and 'another stack is running?', before storage is opened", async () => {
  const res = await hirebridge(["serve", "token", "sandbox"], {
    env: { DATA_DIR: dataDir, AUTH_PORT: String(busyPort), SANDBOX_PORT: String(await freePort()) },
  });
  assert.equal(res.code, 69, res.stderr);
  assert.match(res.stderr, /^Hirebridge cannot start:\n/);
  assert.match(
    res.stderr,
    new RegExp(
      `127\\.0\\.0\\.1:${busyPort} \\(AUTH_PORT, the token service\\) is already in use\\. Another Hirebridge stack is running\\?.*set AUTH_PORT to a free port`,
    ),
  );
  assert.ok(!existsSync(join(dataDir, "pglite")), "nothing opened or migrated");
  assert.ok(!existsSync(join(dataDir, "hirebridge.lock")), "nor the data directory taken");
});

test("npm start checks the ports before it builds anything", async () => {
  const built = join(ROOT, "dist", ".tsbuildinfo.server");
  const before = existsSync(built) ? statSync(built).mtimeMs : undefined;
  const ports = ["PROXY_PORT", "API_PORT", "CONSOLE_PORT", "SANDBOX_PORT"];
  const env: Record<string, string> = { DATA_DIR: dataDir, AUTH_PORT: String(busyPort) };
  for (const p of ports) env[p] = String(await freePort());
  const res = await runUntil("npm", ["start", "--silent"], { env });
  assert.notEqual(res.code, 0);
  assert.match(res.stderr, /\(AUTH_PORT, the token service\) is already in use/);
  assert.equal(existsSync(built) ? statSync(built).mtimeMs : undefined, before, "no build ran");
});

test("one stack per data directory: a live holder is named with its pid; a dead one's lock is taken over and released at exit", async () => {
  const lock = join(dataDir, "hirebridge.lock");
  // This test's own process holds it, as a running stack would.
  await writeFile(lock, JSON.stringify({ pid: process.pid, services: ["token", "api"], started_at: "2026-01-01T00:00:00.000Z" }));
  const sandboxPort = String(await freePort());
  const held = await hirebridge(["serve", "sandbox"], { env: { DATA_DIR: dataDir, SANDBOX_PORT: sandboxPort } });
  assert.equal(held.code, 69, held.stderr);
  assert.match(
    held.stderr,
    new RegExp(`DATA_DIR ${dataDir} is in use by another Hirebridge process \\(pid ${process.pid}, serving token, api since`),
  );
  assert.match(held.stderr, /another stack is running\? .*set DATA_DIR to another directory/);
  const check = await hirebridge(["serve", "--check", "sandbox"], { env: { DATA_DIR: dataDir, SANDBOX_PORT: sandboxPort } });
  assert.equal(check.code, 69, "serve --check says the same");

  // A process that is gone (killed, crashed) holds nothing.
  const gone = spawn(NODE, ["-e", ""]);
  await new Promise((r) => gone.once("exit", r));
  await writeFile(lock, JSON.stringify({ pid: gone.pid, services: ["sandbox"], started_at: "2026-01-01T00:00:00.000Z" }));
  const res = await hirebridge(["serve", "sandbox"], {
    env: { DATA_DIR: dataDir, SANDBOX_PORT: sandboxPort },
    until: /Hirebridge is running\./,
  });
  assert.equal(res.code, 0, res.stderr);
  assert.ok(!existsSync(lock), "released when the stack stopped");
});

test("unreachable storage names its variable (and hides the password)", async () => {
  const closed = await freePort();
  const pg = await hirebridge(["serve", "api"], {
    env: { DATA_DIR: dataDir, API_PORT: String(await freePort()), DATABASE_URL: `postgres://hb:s3cret@127.0.0.1:${closed}/hirebridge` },
  });
  assert.equal(pg.code, 69, pg.stderr);
  assert.match(
    pg.stderr,
    new RegExp(`Cannot reach Postgres at DATABASE_URL \\(postgres://hb:\\*\\*\\*@127\\.0\\.0\\.1:${closed}/hirebridge\\): .*ECONNREFUSED`),
  );
  assert.match(pg.stderr, /point DATABASE_URL at one that is/);
  assert.doesNotMatch(pg.stderr, /s3cret/);

  const redis = await hirebridge(["serve", "api"], {
    env: { DATA_DIR: dataDir, API_PORT: String(await freePort()), REDIS_URL: `redis://127.0.0.1:${closed}` },
  });
  assert.equal(redis.code, 69, redis.stderr);
  assert.match(redis.stderr, new RegExp(`Cannot reach Redis at REDIS_URL \\(redis://127\\.0\\.0\\.1:${closed}\\)`));
  assert.ok(!existsSync(join(dataDir, "pglite")), "checked before the embedded database was opened");
});

test("reset run outside the checkout finds the data where the stack keeps it (a relative DATA_DIR is the checkout's)", async () => {
  const name = `.startup-test-${process.pid}`;
  const inCheckout = join(ROOT, name);
  try {
    await mkdir(join(inCheckout, "pglite"), { recursive: true });
    await writeFile(join(inCheckout, "pglite", "PG_VERSION"), "17");
    const elsewhere = await mkdtemp(join(tmpdir(), "hirebridge-elsewhere-"));
    // The bin, as `npm link` puts it on the PATH, started from another directory.
    const linked = (args: string[], env: Record<string, string>) =>
      runUntil(NODE, [join(ROOT, "bin", "hirebridge.js"), ...args], { cwd: elsewhere, env });
    const res = await linked(["reset", "--yes"], {
      DATA_DIR: `./${name}`,
      API_PORT: String(await freePort()),
      SANDBOX_PORT: String(await freePort()),
    });
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stderr, new RegExp(`Deleted:\\n {2}Hirebridge's database \\(PGlite\\): ${inCheckout}/pglite`));
    assert.ok(!existsSync(join(inCheckout, "pglite")));

    const empty = await linked(["reset", "--yes"], { DATA_DIR: `./${name}` });
    assert.equal(empty.code, 0);
    assert.match(
      empty.stderr,
      new RegExp(
        `Nothing to reset: no Hirebridge data under ${inCheckout} \\(DATA_DIR ./${name}, relative to the checkout ${ROOT}/?\\)\\. If the stack keeps its data elsewhere, set DATA_DIR`,
      ),
    );
    await rm(elsewhere, { recursive: true, force: true });
  } finally {
    await rm(inCheckout, { recursive: true, force: true });
  }
});
