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
 *   - floors (issue 32): one core's RSA-2048 and ES256 signing rates (`crypto.sign` in a loop in
 *     this process, no HTTP), measured in the same rounds: the refresh grant makes one asymmetric
 *     signature, so its target is ≥ 1.5x one core's RSA-2048 rate (two cores, one signature each).
 *     `--alg ES256` runs the token service with AUTH_ACCESS_TOKEN_ALG=ES256.
 * Each HTTP scenario also reports the server process's CPU time per answer (process.cpuUsage of the
 * child, all its threads, over the measured rounds): unlike the rates, other load on the machine
 * barely moves it. `--only=<word>` runs just the scenarios whose name contains the word.
 */
import { fork, type ChildProcess } from "node:child_process";
import { generateKeyPairSync, sign, type KeyObject } from "node:crypto";
import { once } from "node:events";
import { cpus, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { dropSchemas } from "../src/shared/db/pg-schemas.js";
import { enforceGuard, GUARD_BOUNDS, guardLines } from "./guard.js";
import {
  assertAnswers,
  autocannon,
  freePort,
  median,
  MemoryReport,
  option,
  profileFlags,
  settings,
  slowHopFlags,
  type AutocannonResult,
} from "./lib.js";
import { buildTokenApp } from "../src/services/token/app.js";
import { hashParams, hashPassword, verifyPassword, type HashParams } from "../src/services/token/password-hash.js";
import { bearerAuth } from "../src/shared/auth/bearer.plugin.js";
import { createVerifier } from "../src/shared/auth/verify-jwt.js";
import { loadConfig, serviceUrls } from "../src/shared/config.js";
import type { ConfigSchema as ConfigSchemaType } from "../src/runtime/config.js";
import { openDatabase, type Database } from "../src/shared/db/database.js";
import { migrate } from "../src/shared/db/migrate.js";
import { createApp } from "../src/shared/http/create-app.js";
import { createLogger } from "../src/shared/http/logger.js";

/**
 * The services' config schema: src/runtime/config.ts now, src/shared/config.ts in older trees
 * (bench/before.sh runs this bench on them).
 */
const OLD_CONFIG_MODULE = "../src/shared/config.js";
const { ConfigSchema } = (await import("../src/runtime/config.js").catch(() => import(OLD_CONFIG_MODULE))) as {
  ConfigSchema: typeof ConfigSchemaType;
};

type Result = AutocannonResult;
type Client = { on(event: "response", fn: () => void): void; setBody(body: string): void };

const DEFAULT_DB_URL = "postgres://postgres@127.0.0.1:5432/test";
const FORM = { "content-type": "application/x-www-form-urlencoded" };
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

/** Child: the token service and a protected/unprotected no-op API, until the parent says stop. */
async function serve(dbKind: string, alg: string): Promise<void> {
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
  const config = loadConfig(ConfigSchema, {
    LOG_LEVEL: "silent",
    AUTH_PORT: String(await freePort()),
    TOKEN_RATE_LIMIT_PER_MINUTE: "0",
    ...(alg === "RS256" ? {} : { AUTH_ACCESS_TOKEN_ALG: alg }), // older trees know RS256 only
  });
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

/** One core's signing rate (the refresh grant's floor): `crypto.sign` in a loop on this thread, no HTTP. */
const signingKeys: Partial<Record<"RS256" | "ES256", KeyObject>> = {};
function signRun(alg: "RS256" | "ES256", seconds: number): Result & { cpuUsPerOp: number } {
  signingKeys[alg] ??=
    alg === "RS256"
      ? generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey
      : generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey;
  const key = alg === "ES256" ? { key: signingKeys[alg]!, dsaEncoding: "ieee-p1363" as const } : signingKeys[alg]!;
  const input = Buffer.from(`${"h".repeat(60)}.${"p".repeat(400)}`); // a header and payload of an access token's size
  const cpu0 = process.threadCpuUsage();
  const end = performance.now() + seconds * 1000;
  let n = 0;
  while (performance.now() < end) {
    sign("sha256", input, key);
    n++;
  }
  const cpu = process.threadCpuUsage(cpu0);
  return {
    requests: { average: n / seconds, total: n },
    latency: { p50: 0, p99: 0, average: 0 },
    non2xx: 0,
    errors: 0,
    timeouts: 0,
    "2xx": n,
    statusCodeStats: { 200: { count: n } },
    cpuUsPerOp: (cpu.user + cpu.system) / n,
  };
}

export async function main(args: string[]): Promise<void> {
  const dbKind = option(args, "db", "pglite");
  const alg = option(args, "alg", "RS256");
  if (args.includes("--serve")) return serve(dbKind, alg);
  const { rounds, duration, connections, warmup } = settings(args, { rounds: 3, duration: 5, connections: 10, warmup: 1 });

  const loadAtStart = loadavg()[0]!;
  const runner = fileURLToPath(new URL("./run.ts", import.meta.url));
  const child: ChildProcess = fork(runner, ["token", "--serve", `--db=${dbKind}`, `--alg=${alg}`], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    execArgv: [...process.execArgv, ...profileFlags(), ...slowHopFlags()],
  });
  const [ready] = (await once(child, "message")) as [Ready];
  const memory = new MemoryReport();
  memory.idle(`token service + no-op API (${dbKind})`, child.pid);
  try {
    const { access_token } = await passwordGrant(ready.authUrl);
    const tokenUrl = `${ready.authUrl}/protocol/openid-connect/token`;
    const signCpu = new Map<string, number>();
    const signing = (name: string, a: "RS256" | "ES256") => ({
      name,
      inProcess: true as const,
      run: async (seconds: number) => {
        const r = signRun(a, seconds);
        signCpu.set(name, r.cpuUsPerOp);
        return r;
      },
    });
    const RSA = "RSA-2048 signing, one core (floor, no HTTP)";
    const ES = "ES256 signing, one core (floor, no HTTP)";
    const REFRESH = "refresh grant (rotating)";
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
      signing(RSA, "RS256"),
      signing(ES, "ES256"),
      { name: REFRESH, run: (seconds) => refreshRun(ready, connections, seconds) },
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
    // The signing floors always run with the refresh grant they anchor.
    const scenarios = all.filter((s) => s.name.includes(only) || (only && REFRESH.includes(only) && (s.name === RSA || s.name === ES)));
    // Warm-up: JIT, the verifier's JWKS fetch, connection pools.
    for (const s of scenarios) assertAnswers(`${s.name} (warm-up)`, await s.run(warmup), s.expect);

    const results = new Map<string, Result[]>(scenarios.map((s) => [s.name, []]));
    const cpuUs = new Map<string, { us: number; answers: number; perRound: number[] }>(
      scenarios.map((s) => [s.name, { us: 0, answers: 0, perRound: [] }]),
    );
    for (let round = 0; round < rounds; round++) {
      for (const s of scenarios) {
        const before = await childCpuUs(child);
        const r = await s.run(duration);
        const spent = s.inProcess ? (signCpu.get(s.name) ?? 0) * r.requests.total : (await childCpuUs(child)) - before;
        assertAnswers(`${s.name}, round ${round + 1}`, r, s.expect);
        results.get(s.name)!.push(r);
        const c = cpuUs.get(s.name)!;
        c.us += spent;
        c.answers += r.requests.total;
        c.perRound.push(spent / r.requests.total);
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
        cpu: !c.answers || (s.inProcess && !signCpu.has(s.name)) ? "–" : (c.us / c.answers).toFixed(0),
      };
    });
    const open = results.get("no-op route, no auth (baseline)");
    const guarded = results.get("no-op route, bearer verified");
    const bearer =
      open && guarded
        ? [
            `Bearer verification cost: ${median(open.map((o, i) => 1e6 / guarded[i]!.requests.average - 1e6 / o.requests.average)).toFixed(0)} µs of server time per request (median over rounds of 1/rps(verified) - 1/rps(open)); verified/open throughput ${median(open.map((o, i) => guarded[i]!.requests.average / o.requests.average)).toFixed(2)}.`,
            "",
          ]
        : [];

    // Against one core's signing rates (issue 32's target: refreshes/s ≥ 1.5x one core's RSA-2048
    // rate), and the CI guard: a refresh's server CPU over one RSA-2048 signature's.
    const refreshRs = results.get(REFRESH);
    const rsaRs = results.get(RSA);
    const esRs = results.get(ES);
    const cpuOf = (name: string) => cpuUs.get(name)!;
    // PGlite runs the database inside the token service's process, so its CPU per refresh is no
    // hop's (and swings with the database's work): the guard compares the Postgres run.
    const guard =
      refreshRs && rsaRs && dbKind === "postgres"
        ? [
            {
              row: `refresh grant (${alg})`,
              floor: "one RSA-2048 signature",
              oursCpuUs: cpuOf(REFRESH).us / cpuOf(REFRESH).answers,
              floorCpuUs: cpuOf(RSA).us / cpuOf(RSA).answers,
              ratios: cpuOf(REFRESH).perRound.map((v, i) => v / cpuOf(RSA).perRound[i]!),
              bound: GUARD_BOUNDS.refresh,
            },
          ]
        : [];
    const floors =
      refreshRs && rsaRs && esRs
        ? [
            `Against one core's signing rates (same rounds): access tokens ${alg}.`,
            "",
            "| refreshes/s | p99 ms | RSA-2048 signatures/s, one core | ES256 signatures/s, one core | refreshes / RSA-2048 rate (target ≥ 1.5x) | refreshes / ES256 rate | refresh CPU µs | RSA-2048 CPU µs/signature | ES256 CPU µs/signature |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
            `| ${median(refreshRs.map((r) => r.requests.average)).toFixed(0)} | ${median(refreshRs.map((r) => r.latency.p99))} | ${median(rsaRs.map((r) => r.requests.average)).toFixed(0)} | ${median(esRs.map((r) => r.requests.average)).toFixed(0)} | ${median(refreshRs.map((r, i) => r.requests.average / rsaRs[i]!.requests.average)).toFixed(2)}x | ${median(refreshRs.map((r, i) => r.requests.average / esRs[i]!.requests.average)).toFixed(2)}x | ${(cpuOf(REFRESH).us / cpuOf(REFRESH).answers).toFixed(0)} | ${(cpuOf(RSA).us / cpuOf(RSA).answers).toFixed(0)} | ${(cpuOf(ES).us / cpuOf(ES).answers).toFixed(0)} |`,
            "",
            ...guardLines(guard),
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
      ...floors,
      ...memory.lines(),
    ];
    process.stdout.write(`${out.join("\n")}\n`);
    enforceGuard(args, guard);
  } finally {
    child.send("stop");
    await once(child, "exit");
  }
}
