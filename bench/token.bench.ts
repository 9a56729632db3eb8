/**
 * `npm run bench -- token [--rounds=3] [--duration=5] [--connections=10] [--db=pglite|postgres]`
 *
 * Throughput of the token service's two grants and the cost of bearer verification per request.
 * The servers run in a child process (so autocannon does not share their event loop) on
 * 127.0.0.1 with production settings (argon2id, 19 MiB, 2 passes). Every scenario runs once per round, in the
 * same order, and the table reports the median over rounds:
 *   - token endpoint baseline: an `unsupported_grant_type` POST (same route, form parsing and error
 *     path, no storage, no crypto);
 *   - argon2id verification alone (the password grant's floor, same cost, no HTTP or storage);
 *   - password grant (demo user): argon2id verification, a session insert, an RS256 access token
 *     and an HS512 refresh token;
 *   - refresh grant: each connection follows its own rotation chain, always sending the newest
 *     refresh token (single use), so every request is a real rotation;
 *   - a no-op route without auth vs the same route behind the shared bearer hook (RS256 JWT, JWKS
 *     cached); the difference is the verification cost per request.
 * Each HTTP scenario also reports the server process's CPU time per answer (process.cpuUsage of the
 * child, all its threads, over the measured rounds): unlike the rates, other load on the machine
 * barely moves it. `--only=<word>` runs just the scenarios whose name contains the word.
 */
import { fork, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { cpus, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { dropSchemas } from "../src/shared/db/pg-schemas.js";
import { assertAnswers, autocannon, freePort, median, MemoryReport, option, profileFlags, settings, type AutocannonResult } from "./lib.js";
import { buildTokenApp } from "../src/services/token/app.js";
import { hashParams, hashPassword, verifyPassword, type HashParams } from "../src/services/token/password-hash.js";
import { bearerAuth } from "../src/shared/auth/bearer.plugin.js";
import { createVerifier } from "../src/shared/auth/verify-jwt.js";
import { ConfigSchema, loadConfig, serviceUrls } from "../src/shared/config.js";
import { openDatabase, type Database } from "../src/shared/db/database.js";
import { migrate } from "../src/shared/db/migrate.js";
import { createApp } from "../src/shared/http/create-app.js";
import { createLogger } from "../src/shared/http/logger.js";

type Result = AutocannonResult;
type Client = { on(event: "response", fn: () => void): void; setBody(body: string): void };

const DEFAULT_DB_URL = "postgres://postgres@127.0.0.1:5432/test";
const FORM = { "content-type": "application/x-www-form-urlencoded" };
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

/** Child: the token service and a protected/unprotected no-op API, until the parent says stop. */
async function serve(dbKind: string): Promise<void> {
  let database: Database;
  let dropSchema = async () => {};
  if (dbKind === "postgres") {
    const url = process.env["TEST_DATABASE_URL"] ?? DEFAULT_DB_URL;
    const schema = `bench_token_${process.pid}`;
    database = await openDatabase({ url, schema });
    dropSchema = () => dropSchemas(url, schema);
  } else {
    database = await openDatabase({ dataDir: "memory://" });
  }
  await migrate(database);
  // One client far above any per-address limit: the token endpoint's rate limit is off here.
  const config = loadConfig(ConfigSchema, { LOG_LEVEL: "silent", AUTH_PORT: String(await freePort()), TOKEN_RATE_LIMIT_PER_MINUTE: "0" });
  const logger = createLogger("silent");
  const token = await buildTokenApp({ config, logger, database, urls: serviceUrls(config) });
  await token.app.listen({ host: "127.0.0.1", port: config.AUTH_PORT });

  const api = createApp({ service: "bench", logger });
  api.get("/noop", async () => ({ ok: true }));
  api.register(async (scope) => {
    scope.addHook("onRequest", bearerAuth(createVerifier({ issuer: serviceUrls(config).authUrl })));
    scope.get("/protected/noop", async () => ({ ok: true }));
  });
  const apiPort = await freePort();
  await api.listen({ host: "127.0.0.1", port: apiPort });

  process.on("message", async (msg) => {
    if (msg === "cpu") return process.send!({ cpu: process.cpuUsage() });
    if (msg !== "stop") return;
    await api.close();
    await token.app.close();
    await database.close();
    await dropSchema();
    process.exit(0);
  });
  process.send!({ authUrl: serviceUrls(config).authUrl, apiUrl: `http://127.0.0.1:${apiPort}`, hash: hashParams(config) });
  // bench/run.ts exits when main returns; the child lives until the parent's "stop".
  await new Promise<never>(() => {});
}

type Ready = { authUrl: string; apiUrl: string; hash: HashParams };

/** The server child's CPU time so far (user + system, every thread), in µs. */
async function childCpuUs(child: ChildProcess): Promise<number> {
  const answer = once(child, "message") as Promise<[{ cpu: NodeJS.CpuUsage }]>;
  child.send("cpu");
  const [{ cpu }] = await answer;
  return cpu.user + cpu.system;
}

async function passwordGrant(authUrl: string): Promise<{ access_token: string; refresh_token: string }> {
  const res = await fetch(`${authUrl}/protocol/openid-connect/token`, {
    method: "POST",
    headers: FORM,
    body: form({ grant_type: "password", client_id: "hirebridge", username: "demo", password: "demo-password" }),
  });
  if (res.status !== 200) throw new Error(`password grant failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as { access_token: string; refresh_token: string };
}

/** Every connection refreshes its own session, always with the refresh token it was just given. */
async function refreshRun(ready: Ready, connections: number, duration: number): Promise<Result> {
  const pool = await Promise.all(Array.from({ length: connections }, () => passwordGrant(ready.authUrl)));
  let lastBody = "";
  const body = (refresh: string) => form({ grant_type: "refresh_token", client_id: "hirebridge", refresh_token: refresh });
  return autocannon({
    url: `${ready.authUrl}/protocol/openid-connect/token`,
    method: "POST",
    headers: FORM,
    body: body(pool[0]!.refresh_token),
    connections,
    duration,
    // autocannon calls onResponse and then emits the client's "response" synchronously, before the
    // next request is built: the body seen here belongs to the client notified right after.
    requests: [{ onResponse: (_status: number, resBody: string) => (lastBody = resBody) }],
    setupClient: (client: Client) => {
      const own = pool.pop();
      if (own) client.setBody(body(own.refresh_token));
      client.on("response", () => {
        const next = (JSON.parse(lastBody) as { refresh_token?: string }).refresh_token;
        if (next) client.setBody(body(next));
      });
    },
  });
}

/**
 * The password grant's floor: password verifications alone (argon2id at the service's cost), as
 * many at once as libuv's pool runs (4), no HTTP and no storage, in the same run.
 */
async function hashRun(params: HashParams, seconds: number): Promise<Result> {
  const stored = await hashPassword("demo-password", params);
  const latencies: number[] = [];
  const end = performance.now() + seconds * 1000;
  await Promise.all(
    [1, 2, 3, 4].map(async () => {
      while (performance.now() < end) {
        const t = performance.now();
        await verifyPassword("demo-password", stored);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const sorted = latencies.sort((a, b) => a - b);
  const at = (q: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0);
  const n = latencies.length;
  return {
    requests: { average: n / seconds, total: n },
    latency: { p50: at(0.5), p99: at(0.99), average: 0 },
    non2xx: 0,
    errors: 0,
    timeouts: 0,
    "2xx": n,
    statusCodeStats: { 200: { count: n } },
  };
}

export async function main(args: string[]): Promise<void> {
  const dbKind = option(args, "db", "pglite");
  if (args.includes("--serve")) return serve(dbKind);
  const { rounds, duration, connections, warmup } = settings(args, { rounds: 3, duration: 5, connections: 10, warmup: 1 });

  const loadAtStart = loadavg()[0]!;
  const runner = fileURLToPath(new URL("./run.ts", import.meta.url));
  const child: ChildProcess = fork(runner, ["token", "--serve", `--db=${dbKind}`], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    execArgv: [...process.execArgv, ...profileFlags()],
  });
  const [ready] = (await once(child, "message")) as [Ready];
  const memory = new MemoryReport();
  memory.idle(`token service + no-op API (${dbKind})`, child.pid);
  try {
    const { access_token } = await passwordGrant(ready.authUrl);
    const tokenUrl = `${ready.authUrl}/protocol/openid-connect/token`;
    const all: { name: string; expect?: number; inProcess?: true; run: (seconds: number) => Promise<Result> }[] = [
      {
        name: "token endpoint baseline (unsupported_grant_type, 400)",
        expect: 400,
        run: (seconds) =>
          autocannon({ url: tokenUrl, method: "POST", headers: FORM, body: form({ grant_type: "none" }), connections, duration: seconds }),
      },
      { name: "argon2id verification alone (4 at once, no HTTP)", inProcess: true, run: (seconds) => hashRun(ready.hash, seconds) },
      {
        name: "password grant",
        run: (seconds) =>
          autocannon({
            url: tokenUrl,
            method: "POST",
            headers: FORM,
            body: form({ grant_type: "password", client_id: "hirebridge", username: "demo", password: "demo-password" }),
            connections,
            duration: seconds,
          }),
      },
      { name: "refresh grant (rotating)", run: (seconds) => refreshRun(ready, connections, seconds) },
      {
        name: "no-op route, no auth (baseline)",
        run: (seconds) => autocannon({ url: `${ready.apiUrl}/noop`, connections, duration: seconds }),
      },
      {
        name: "no-op route, bearer verified",
        run: (seconds) =>
          autocannon({
            url: `${ready.apiUrl}/protected/noop`,
            headers: { authorization: `Bearer ${access_token}` },
            connections,
            duration: seconds,
          }),
      },
    ];
    const only = option(args, "only", "");
    const scenarios = all.filter((s) => s.name.includes(only));
    // Warm-up: JIT, the verifier's JWKS fetch, connection pools.
    for (const s of scenarios) assertAnswers(`${s.name} (warm-up)`, await s.run(warmup), s.expect);

    const results = new Map<string, Result[]>(scenarios.map((s) => [s.name, []]));
    const cpuUs = new Map<string, { us: number; answers: number }>(scenarios.map((s) => [s.name, { us: 0, answers: 0 }]));
    for (let round = 0; round < rounds; round++) {
      for (const s of scenarios) {
        const before = await childCpuUs(child);
        const r = await s.run(duration);
        const spent = (await childCpuUs(child)) - before;
        assertAnswers(`${s.name}, round ${round + 1}`, r, s.expect);
        results.get(s.name)!.push(r);
        const c = cpuUs.get(s.name)!;
        c.us += spent;
        c.answers += r.requests.total;
      }
    }

    memory.peaks();
    const rows = scenarios.map((s) => {
      const rs = results.get(s.name)!;
      const c = cpuUs.get(s.name)!;
      return {
        name: s.name,
        rps: median(rs.map((r) => r.requests.average)),
        p50: median(rs.map((r) => r.latency.p50)),
        p99: median(rs.map((r) => r.latency.p99)),
        cpu: s.inProcess || !c.answers ? "–" : (c.us / c.answers).toFixed(0),
      };
    });
    const open = results.get(all[4]!.name);
    const guarded = results.get(all[5]!.name);
    const bearer =
      open && guarded
        ? [
            `Bearer verification cost: ${median(open.map((o, i) => 1e6 / guarded[i]!.requests.average - 1e6 / o.requests.average)).toFixed(0)} µs of server time per request (median over rounds of 1/rps(verified) - 1/rps(open)); verified/open throughput ${median(open.map((o, i) => guarded[i]!.requests.average / o.requests.average)).toFixed(2)}.`,
            "",
          ]
        : [];

    const out = [
      `Token service benchmark: ${rounds} rounds x ${duration} s, ${connections} connections, storage ${dbKind}, argon2id m=${ready.hash.memoryKiB} KiB t=${ready.hash.passes} p=${ready.hash.parallelism}`,
      `Machine: ${cpus().length} x ${cpus()[0]?.model ?? "cpu"}, Node ${process.version}, load average ${loadAtStart.toFixed(1)} at start, ${loadavg()[0]!.toFixed(1)} at end`,
      "",
      "| scenario | req/s (median) | p50 ms | p99 ms | server CPU µs/answer |",
      "|---|---:|---:|---:|---:|",
      ...rows.map((r) => `| ${r.name} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.cpu} |`),
      "",
      ...bearer,
      ...memory.lines(),
    ];
    process.stdout.write(`${out.join("\n")}\n`);
  } finally {
    child.send("stop");
    await once(child, "exit");
  }
}
