/**
 * `npm run bench -- recruiting [--duration 5] [--rounds 3] [--connections 10] [--storage pglite,postgres] [--candidates 1000] [--only=<word>] [--smoke] [--guard]`
 *
 * Starts the real token service and recruiting API (`hirebridge serve token api`) in a child
 * process per storage kind (PGlite on disk under a temp DATA_DIR; Postgres in a fresh schema of
 * BENCH_DATABASE_URL, default the local `test` database, dropped after), logs in as the demo user,
 * seeds a position with 1,000 candidates through the API, then load-tests from this process with
 * autocannon: GET /healthz of the same server (baseline), GET one position, the list of 1,000
 * candidates, and candidate creation. Scenarios are interleaved round by round; the table reports
 * medians over the rounds. `--only=<word>` runs the baseline, the floors and the scenarios whose
 * name holds the word. Everything binds to 127.0.0.1 and stops by itself.
 *
 * Floors (bench/floors.ts, issue 32), measured in the same rounds with the same autocannon settings:
 * plain node:http for `GET /org_id` (bearer checked, no I/O), node:http + one `select 1` on a pg
 * pool for GET one position (and, for reference, the list), node:http + one committed INSERT for
 * POST candidate. Two anchors sit beside `GET /org_id`: the floor's answer from a bare Fastify
 * route, and the same per-request work as ours (bearer, request id, headers, metrics) written with
 * the libraries alone (`fastify+contract`), which on Postgres also serves GET one position beside
 * ours. Every row reports the CPU µs per request of its process (ours: the `serve token api` child;
 * a floor: its own), and `--guard` fails the run when ours over its floor's is past
 * the bound in bench/guard.ts (Postgres rows: PGlite runs the database inside our process).
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { dropSchemas } from "../src/shared/db/pg-schemas.js";
import { cpuPerRequest, type Floor, startFloor } from "./floors.js";
import { enforceGuard, GUARD_BOUNDS, type GuardRow, guardLines } from "./guard.js";
import {
  assertAnswers,
  autocannon,
  DEMO_ORG,
  demoToken,
  freePort,
  median,
  MemoryReport,
  option,
  profileFlags,
  ROOT,
  settings,
  slowHopFlags,
  waitHealthy,
  type AutocannonResult as Result,
  type Settings,
} from "./lib.js";

type Server = {
  api: string;
  auth: string;
  pid: number | undefined;
  database?: { url: string; schema: string } | undefined;
  stop(): Promise<void>;
};

async function startServer(storage: string): Promise<Server> {
  const [apiPort, authPort] = [await freePort(), await freePort()];
  const env: Record<string, string> = {
    ...process.env,
    HOST: "127.0.0.1",
    API_PORT: String(apiPort),
    AUTH_PORT: String(authPort),
    LOG_LEVEL: "silent",
    NODE_NO_WARNINGS: "1",
  } as Record<string, string>;
  // One benchmark client is far above any per-caller limit: the limits are off for the run.
  Object.assign(env, { RATE_LIMIT_PER_MINUTE: "0", RATE_LIMIT_ORG_PER_MINUTE: "0", TOKEN_RATE_LIMIT_PER_MINUTE: "0" });
  const dataDir = mkdtempSync(join(tmpdir(), "hirebridge-bench-"));
  env["DATA_DIR"] = dataDir;
  let dropSchema: (() => Promise<void>) | undefined;
  let database: Server["database"];
  if (storage === "postgres") {
    const url = process.env["BENCH_DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";
    const schema = `bench_${randomBytes(4).toString("hex")}`;
    Object.assign(env, { DATABASE_URL: url, DATABASE_SCHEMA: schema });
    dropSchema = () => dropSchemas(url, schema);
    database = { url, schema };
  } else {
    delete env["DATABASE_URL"];
  }
  const child = spawn(
    process.execPath,
    [...profileFlags(), ...slowHopFlags(), "--import", "tsx", "src/cli/main.ts", "serve", "token", "api"],
    {
      cwd: ROOT,
      env,
      stdio: ["ignore", "ignore", "inherit"],
    },
  );
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    }
    await dropSchema?.();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await waitHealthy(`http://127.0.0.1:${authPort}/healthz`, child, 120_000);
    await waitHealthy(`http://127.0.0.1:${apiPort}/healthz`, child, 120_000);
  } catch (err) {
    await stop();
    throw err;
  }
  return { api: `http://127.0.0.1:${apiPort}`, auth: `http://127.0.0.1:${authPort}/realms/hirebridge`, pid: child.pid, database, stop };
}

async function post(url: string, token: string, body: unknown): Promise<{ id: string }> {
  const res = await fetch(url, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`POST ${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as { id: string };
}

/** One position with `n` candidates (created through the API, 10 at a time), one empty position for creation. */
async function seed(api: string, token: string, n: number) {
  const base = `${api}/api/v1/org/${DEMO_ORG}`;
  const listed = await post(`${base}/position`, token, { name: "Bench: listed", state: "active" });
  const target = await post(`${base}/position`, token, { name: "Bench: creation target" });
  for (let i = 0; i < n; i += 10) {
    await Promise.all(
      Array.from({ length: Math.min(10, n - i) }, (_, k) =>
        post(`${base}/positions/${listed.id}/`, token, {
          name: `Candidate ${i + k}`,
          email: `seed${i + k}@bench.test`,
          phone: "+1 555 0100",
          language: "en",
          tags: ["bench"],
        }),
      ),
    );
  }
  return { position: `${base}/position/${listed.id}`, list: `${base}/positions/${listed.id}/`, create: `${base}/positions/${target.id}/` };
}

/** The HTTP floor's answer from a bare Fastify route (bench/floors.ts): what the framework alone costs. */
const ANCHOR = "anchor: bare Fastify (no hooks)";
/** `GET /org_id`'s per-request work with the libraries alone (bench/floors.ts, `fastify+contract`). */
const CONTRACT_ANCHOR = "anchor: Fastify + the same per-request work, libraries only";
/** GET one position's work (bearer, params, org check, one prepared select) with the libraries alone. */
const POSITION_ANCHOR = "anchor: GET one position, the same work, libraries only";

/** A load scenario; `pid` is the process whose CPU per request it reports (ours or a floor's). */
type Scenario = { name: string; opts: Record<string, unknown>; pid: number | undefined };
type Floors = { http: Floor; pg: Floor; insert: Floor; fastify: Floor };
type Measured = { rows: string[]; floorRows: string[]; guard: GuardRow[] };

/** A candidate body like the API's POST takes, unique per request (the floor inserts the same fields). */
const candidateRequest = (storage: string, counter: { n: number }) => [
  {
    setupRequest: (req: Record<string, unknown>) => ({
      ...req,
      body: JSON.stringify({ name: "Load Test", email: `load${counter.n++}.${storage}@bench.test`, phone: "+1 555 0101", language: "en" }),
    }),
  },
];

async function measure(
  storage: string,
  cfg: Settings & { candidates: number; only: string },
  memory: MemoryReport,
  floors: Floors,
): Promise<Measured> {
  const server = await startServer(storage);
  memory.idle(`serve token api (${storage})`, server.pid);
  let contract: Floor | undefined;
  try {
    contract = await startFloor("fastify+contract", {
      realm: server.auth,
      ...(server.database ? { databaseUrl: server.database.url, schema: server.database.schema } : {}),
    });
    const token = await demoToken(server.auth);
    const urls = await seed(server.api, token, cfg.candidates);
    const auth = { authorization: `Bearer ${token}` };
    const created = { n: 0 };
    const ours = server.pid;
    const listName = `GET ${cfg.candidates.toLocaleString("en")} candidates`;
    const post = (url: string, pid: number | undefined, name: string): Scenario => ({
      name,
      pid,
      opts: { url, method: "POST", headers: { ...auth, "content-type": "application/json" }, requests: candidateRequest(storage, created) },
    });
    // The baseline, the floors and the anchors always run: the other rows are ratios to them.
    const always: Scenario[] = [
      { name: "GET /healthz (baseline)", pid: ours, opts: { url: `${server.api}/healthz` } },
      { name: "floor: node:http", pid: floors.http.pid, opts: { url: `${floors.http.url}/org_id`, headers: auth } },
      { name: "floor: node:http + pg select 1", pid: floors.pg.pid, opts: { url: `${floors.pg.url}/position`, headers: auth } },
      post(`${floors.insert.url}/candidates`, floors.insert.pid, "floor: node:http + committed INSERT"),
      { name: ANCHOR, pid: floors.fastify.pid, opts: { url: `${floors.fastify.url}/org_id`, headers: auth } },
      { name: CONTRACT_ANCHOR, pid: contract.pid, opts: { url: `${contract.url}/api/v1/org_id`, headers: auth } },
    ];
    const chosen: Scenario[] = [
      { name: "GET /org_id (bearer, no I/O)", pid: ours, opts: { url: `${server.api}/api/v1/org_id`, headers: auth } },
      // The same read from the contract anchor (Postgres only: on PGlite the database is inside our process).
      ...(server.database
        ? [{ name: POSITION_ANCHOR, pid: contract.pid, opts: { url: urls.position.replace(server.api, contract.url), headers: auth } }]
        : []),
      { name: "GET one position", pid: ours, opts: { url: urls.position, headers: auth } },
      { name: listName, pid: ours, opts: { url: urls.list, headers: auth } },
      post(urls.create, ours, "POST candidate (create)"),
    ];
    const scenarios = [...always, ...chosen.filter((s) => s.name.includes(cfg.only))];
    const samples = new Map<string, Result[]>(scenarios.map((s) => [s.name, []]));
    const cpu = new Map<string, { us: number; requests: number; perRound: number[] }>(
      scenarios.map((s) => [s.name, { us: 0, requests: 0, perRound: [] }]),
    );
    for (const s of scenarios)
      assertAnswers(`${storage} ${s.name} (warm-up)`, await autocannon({ ...s.opts, connections: cfg.connections, duration: cfg.warmup }));
    for (let round = 0; round < cfg.rounds; round++) {
      for (const s of scenarios) {
        const { result: r, cpuUs } = await cpuPerRequest(
          [s.pid],
          () => autocannon({ ...s.opts, connections: cfg.connections, duration: cfg.duration }),
          (x) => x.requests.total,
        );
        assertAnswers(`${storage} ${s.name}, round ${round + 1}`, r);
        samples.get(s.name)!.push(r);
        const c = cpu.get(s.name)!;
        c.us += cpuUs * r.requests.total;
        c.requests += r.requests.total;
        c.perRound.push(cpuUs);
      }
    }
    memory.peaks();
    const rps = (name: string) => samples.get(name)!.map((r) => r.requests.average);
    const cpuUs = (name: string) => cpu.get(name)!.us / cpu.get(name)!.requests;
    const baseline = median(rps(scenarios[0]!.name));
    const rows = scenarios.map((s) => {
      const rs = samples.get(s.name)!;
      const m = median(rps(s.name));
      return `| ${storage} | ${s.name} | ${m.toFixed(0)} | ${median(rs.map((r) => r.latency.p50)).toFixed(1)} | ${median(rs.map((r) => r.latency.p99)).toFixed(1)} | ${((m / baseline) * 100).toFixed(0)}% | ${cpuUs(s.name).toFixed(0)} |`;
    });
    const p99 = (name: string) => median(samples.get(name)!.map((r) => r.latency.p99));
    const anchored: { row: string; floor: string; target: string; guard?: keyof typeof GUARD_BOUNDS }[] = [
      { row: ANCHOR, floor: "floor: node:http", target: "(reference: the framework alone)" },
      { row: CONTRACT_ANCHOR, floor: "floor: node:http", target: "(reference: the contract's work on Fastify)" },
      { row: POSITION_ANCHOR, floor: "floor: node:http + pg select 1", target: "(reference: the same work on Fastify)" },
      { row: "GET /org_id (bearer, no I/O)", floor: "floor: node:http", target: "≥ 0.7x", guard: "GET /org_id" },
      { row: "GET one position", floor: "floor: node:http + pg select 1", target: "≥ 0.7x", guard: "GET one position" },
      { row: listName, floor: "floor: node:http + pg select 1", target: "≥ 500 req/s, p99 < 25 ms", guard: "list" },
      { row: "POST candidate (create)", floor: "floor: node:http + committed INSERT", target: "≥ 0.5x", guard: "POST candidate" },
    ];
    const present = anchored.filter((a) => samples.has(a.row));
    const floorRows = present.map((a) => {
      // Per-round ratios, then their median: a row and its floor are measured seconds apart.
      const floorRps = rps(a.floor);
      const ratio = median(rps(a.row).map((v, i) => v / floorRps[i]!));
      return `| ${storage} | ${a.row} | ${median(rps(a.row)).toFixed(0)} | ${p99(a.row).toFixed(1)} | ${a.floor.replace("floor: ", "")} | ${median(floorRps).toFixed(0)} | ${p99(a.floor).toFixed(1)} | ${ratio.toFixed(2)}x | ${cpuUs(a.row).toFixed(0)} | ${cpuUs(a.floor).toFixed(0)} | ${(cpuUs(a.row) / cpuUs(a.floor)).toFixed(2)}x | ${a.target} |`;
    });
    // PGlite runs the database inside our process, so its CPU per request is no hop's: the guard
    // compares the Postgres rows.
    const guard =
      storage === "postgres"
        ? present.flatMap(({ guard, ...a }) =>
            guard
              ? [
                  {
                    row: `${a.row} (${storage})`,
                    floor: a.floor.replace("floor: ", ""),
                    oursCpuUs: cpuUs(a.row),
                    floorCpuUs: cpuUs(a.floor),
                    ratios: cpu.get(a.row)!.perRound.map((v, i) => v / cpu.get(a.floor)!.perRound[i]!),
                    bound: GUARD_BOUNDS[guard],
                  },
                ]
              : [],
          )
        : [];
    return { rows, floorRows, guard };
  } finally {
    await contract?.stop();
    await server.stop();
  }
}

export async function main(args: string[]): Promise<void> {
  const base = settings(args, { rounds: 3, duration: 5, connections: 10 });
  const cfg = { ...base, candidates: Number(option(args, "candidates", base.smoke ? "100" : "1000")), only: option(args, "only", "") };
  const kinds = option(args, "storage", "pglite,postgres").split(",");
  const databaseUrl = process.env["BENCH_DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";
  const floors: Floors = {
    http: await startFloor("http"),
    pg: await startFloor("http+pg", { databaseUrl }),
    insert: await startFloor("http+insert", { databaseUrl }),
    fastify: await startFloor("fastify"),
  };
  const measured: Measured = { rows: [], floorRows: [], guard: [] };
  const memory = new MemoryReport();
  try {
    for (const storage of kinds) {
      const m = await measure(storage, cfg, memory, floors);
      measured.rows.push(...m.rows);
      measured.floorRows.push(...m.floorRows);
      measured.guard.push(...m.guard);
    }
  } finally {
    for (const f of Object.values(floors)) await f.stop();
  }
  process.stdout.write(
    [
      `Recruiting API, ${cfg.connections} connections, ${cfg.rounds} rounds × ${cfg.duration}s (medians); Node ${process.version}, ${cpus().length}× ${cpus()[0]?.model ?? "cpu"}`,
      "",
      "| storage | scenario | req/s | p50 ms | p99 ms | vs baseline | CPU µs/req |",
      "|---|---|---:|---:|---:|---:|---:|",
      ...measured.rows,
      "",
      "Against the floors (same run, same autocannon settings; floors on Postgres for both storages):",
      "",
      "| storage | row | req/s | p99 ms | floor | floor req/s | floor p99 ms | ratio | CPU µs/req | floor CPU µs/req | CPU ratio | target |",
      "|---|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---|",
      ...measured.floorRows,
      "",
      ...guardLines(measured.guard),
      "",
      ...memory.lines(),
      "",
    ].join("\n"),
  );
  enforceGuard(args, measured.guard);
}
