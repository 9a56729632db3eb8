/**
 * Hirebridge scaled out on this machine: every service a separate `hirebridge serve` process started
 * by the real CLI, configured through the environment only, on the machine's real Postgres (a fresh
 * schema per run) and Redis. One process runs the token service and the sandbox; the proxy and the
 * recruiting API run twice each, on their own ports, sharing the database, the job queue and the
 * cache. The sandbox delivers its signed webhooks to this module's receiver, so a test can deliver
 * each genuine event to whichever proxies it likes, as often as it likes.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes, randomInt } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { dropSchemas, jobQueueSchema } from "../../../src/shared/db/pg-schemas.js";
import { TEST_DATABASE_URL, TEST_REDIS_URL } from "../../helpers/db.js";
import { freePort } from "../../helpers/ports.js";
import { startReceiver, type CapturedWebhook } from "./webhook-receiver.js";

export type { CapturedWebhook } from "./webhook-receiver.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

export type ExitStatus = { code: number | null; signal: NodeJS.Signals | null };

/** A structured log line about durable work: a webhook event's (`event_id`) or a sync run's (`sync_run`). */
export type WorkRecord = { msg: string; event_id?: string; status?: string; sync_run?: string; pages_done?: number; time: number };

/** One `hirebridge serve …` process. */
export type Instance = {
  /** e.g. `proxy-a`; also its Postgres application_name (`scale-proxy-a`), to tell its connections apart. */
  name: string;
  port: number;
  /** Origin, e.g. http://127.0.0.1:41234 */
  origin: string;
  child: ChildProcess;
  exited: Promise<ExitStatus>;
  /** The process's last lines of output, for failure messages. */
  output(): string;
  /** Every log line of this process about webhook events and sync runs (the proxies log them at info). */
  work: WorkRecord[];
};

export type Cluster = {
  schema: string;
  /** The job queue's schema (pg-boss), `<schema>_boss`. */
  bossSchema: string;
  /** Realm URL of the token process: the issuer every API trusts. */
  authUrl: string;
  /** The sandbox's origin (admin surface at /sandbox/…) and API base (…/v1). */
  sandboxOrigin: string;
  sandboxApi: string;
  core: Instance;
  proxies: [Instance, Instance];
  apis: [Instance, Instance];
  /** Queries the run's schema (search_path set), on a small pool of the test's own. */
  sql<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<R[]>;
  /** Webhooks the sandbox delivered to the test's receiver, oldest first. */
  webhooks: CapturedWebhook[];
  /** Waits until the sandbox has delivered a webhook matching `match`. */
  webhook(match: (w: CapturedWebhook) => boolean, timeoutMs?: number): Promise<CapturedWebhook>;
  /** Starts a new process in place of a stopped one: same name, port and environment, as an orchestrator would. */
  replace(instance: Instance): Promise<Instance>;
  /** Diagnostics of every process, for assertion messages. */
  outputs(): string;
  close(): Promise<void>;
};

export type ClusterOptions = {
  /** Environment shared by every process (on top of the cluster's own). */
  env?: Record<string, string>;
};

const OUTPUT_LINES = 60;

export function spawnServe(name: string, services: string[], port: number, env: Record<string, string>): Instance {
  const child = spawn(process.execPath, ["--import", "tsx", "src/cli/main.ts", "serve", ...services], {
    cwd: ROOT,
    env: { PATH: process.env["PATH"] ?? "", HOME: process.env["HOME"] ?? "", NODE_NO_WARNINGS: "1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  const work: WorkRecord[] = [];
  const collect = (stream: NodeJS.ReadableStream) => {
    let partial = "";
    stream.on("data", (chunk: Buffer) => {
      const complete = (partial + chunk.toString("utf8")).split("\n");
      partial = complete.pop() ?? "";
      for (const line of complete.filter(Boolean)) {
        if (line.startsWith("{")) {
          try {
            const record = JSON.parse(line) as WorkRecord;
            if (record.event_id !== undefined || record.sync_run !== undefined) work.push(record);
          } catch {
            // not a log line
          }
        }
        lines.push(line);
      }
      if (lines.length > OUTPUT_LINES) lines.splice(0, lines.length - OUTPUT_LINES);
    });
  };
  collect(child.stdout!);
  collect(child.stderr!);
  const exited = new Promise<ExitStatus>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  return {
    name,
    port,
    origin: `http://127.0.0.1:${port}`,
    child,
    exited,
    output: () => `--- ${name} (pid ${child.pid})\n${lines.join("\n")}`,
    work,
  };
}

export async function waitHealthy(instance: Instance, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (instance.child.exitCode !== null) throw new Error(`${instance.name} exited with ${instance.child.exitCode}\n${instance.output()}`);
    if (
      await fetch(`${instance.origin}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await sleep(150);
  }
  throw new Error(`${instance.name} not healthy within ${timeoutMs} ms\n${instance.output()}`);
}

/** Stops a process politely, then firmly; resolves with how it exited. */
export async function stopInstance(instance: Instance, graceMs = 20_000): Promise<ExitStatus> {
  if (instance.child.exitCode === null && instance.child.signalCode === null) {
    instance.child.kill("SIGTERM");
    const timer = setTimeout(() => instance.child.kill("SIGKILL"), graceMs);
    const status = await instance.exited;
    clearTimeout(timer);
    return status;
  }
  return instance.exited;
}

export async function startCluster(opts: ClusterOptions = {}): Promise<Cluster> {
  const schema = `scale_${process.pid}_${randomBytes(3).toString("hex")}`;
  const admin = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 3, options: `-c search_path=${schema}` });
  admin.on("error", () => {});
  // Created up front: several processes running `create schema if not exists` at once can collide.
  await admin.query(`create schema ${schema}`);
  const webhooks: CapturedWebhook[] = [];
  const receiver = await startReceiver(webhooks);
  const dataDir = mkdtempSync(join(tmpdir(), "hirebridge-scale-"));
  const [authPort, sandboxPort, proxyA, proxyB, apiA, apiB] = (await Promise.all(Array.from({ length: 6 }, () => freePort()))) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const authUrl = `http://127.0.0.1:${authPort}/realms/hirebridge`;
  const sandboxSeed = String(randomInt(1, 2 ** 31));
  const env = (name: string): Record<string, string> => ({
    HOST: "127.0.0.1",
    // The proxies log each webhook event's and sync run's work at info: the test reads who did what.
    LOG_LEVEL: name.startsWith("proxy") ? "info" : "warn",
    DATA_DIR: dataDir,
    // application_name tells each process's connections apart in pg_stat_activity.
    DATABASE_URL: `${TEST_DATABASE_URL}${TEST_DATABASE_URL.includes("?") ? "&" : "?"}application_name=scale-${name}`,
    DATABASE_SCHEMA: schema,
    REDIS_URL: TEST_REDIS_URL,
    AUTH_PORT: String(authPort),
    SANDBOX_PORT: String(sandboxPort),
    AUTH_ISSUER: authUrl,
    UPSTREAM_BASE_URL: `http://127.0.0.1:${sandboxPort}/v1`,
    SANDBOX_WEBHOOK_URL: receiver.url,
    // A seed of its own per run: the sandbox's integration ids (and so the shared cache's keys) are new.
    SANDBOX_SEED: sandboxSeed,
    // The demo user's password hash: the code path of production at a test's cost.
    PASSWORD_HASH_MEMORY_KIB: "1024",
    PASSWORD_HASH_PASSES: "1",
    // One client address makes all the test's traffic; limits are not what this test is about.
    RATE_LIMIT_PER_MINUTE: "0",
    RATE_LIMIT_ORG_PER_MINUTE: "0",
    TOKEN_RATE_LIMIT_PER_MINUTE: "0",
    ...opts.env,
  });
  const started: Instance[] = [];
  const envOf = new Map<Instance, { services: string[]; env: Record<string, string> }>();
  const spawnTracked = (name: string, services: string[], port: number, extra: Record<string, string>) => {
    const processEnv = { ...env(name), ...extra };
    const instance = spawnServe(name, services, port, processEnv);
    envOf.set(instance, { services, env: processEnv });
    started.push(instance);
    return instance;
  };
  // Should the test process end without closing the cluster (a crash, a timeout), take the servers with it.
  const killLeftovers = () => {
    for (const i of started) if (i.child.exitCode === null && i.child.signalCode === null) i.child.kill("SIGKILL");
  };
  process.once("exit", killLeftovers);
  const closeAll = async () => {
    await Promise.all(started.map((i) => stopInstance(i)));
    process.off("exit", killLeftovers);
    await new Promise<void>((resolve) => receiver.server.close(() => resolve()));
    receiver.server.closeAllConnections();
    await dropSchemas(TEST_DATABASE_URL, schema).catch(() => {});
    await admin.end();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    // All at once: migrations run under an advisory lock, and the job queue installs itself under one.
    const core = spawnTracked("core", ["token", "sandbox"], authPort, {});
    const proxies = [
      spawnTracked("proxy-a", ["proxy"], proxyA, { PROXY_PORT: String(proxyA) }),
      spawnTracked("proxy-b", ["proxy"], proxyB, { PROXY_PORT: String(proxyB) }),
    ] as [Instance, Instance];
    const apis = [
      spawnTracked("api-a", ["api"], apiA, { API_PORT: String(apiA) }),
      spawnTracked("api-b", ["api"], apiB, { API_PORT: String(apiB) }),
    ] as [Instance, Instance];
    const sandbox = { ...core, origin: `http://127.0.0.1:${sandboxPort}` };
    await Promise.all([core, sandbox, ...proxies, ...apis].map((i) => waitHealthy(i)));

    return {
      schema,
      bossSchema: jobQueueSchema(schema),
      authUrl,
      sandboxOrigin: `http://127.0.0.1:${sandboxPort}`,
      sandboxApi: `http://127.0.0.1:${sandboxPort}/v1`,
      core,
      proxies,
      apis,
      sql: async (text, params) => (await admin.query(text, params)).rows,
      webhooks,
      async webhook(match, timeoutMs = 15_000) {
        const deadline = Date.now() + timeoutMs;
        for (;;) {
          const found = webhooks.find(match);
          if (found) return found;
          if (Date.now() > deadline) throw new Error(`the sandbox sent no matching webhook within ${timeoutMs} ms`);
          await sleep(50);
        }
      },
      async replace(instance) {
        const how = envOf.get(instance);
        if (!how) throw new Error(`${instance.name} was not started by this cluster`);
        if (instance.child.exitCode === null && instance.child.signalCode === null) throw new Error(`${instance.name} is still running`);
        const next = spawnServe(instance.name, how.services, instance.port, how.env);
        envOf.set(next, how);
        started.push(next);
        await waitHealthy(next);
        return next;
      },
      outputs: () => started.map((i) => i.output()).join("\n"),
      close: closeAll,
    };
  } catch (err) {
    await closeAll();
    throw err;
  }
}
