/**
 * `npm run bench -- recruiting [--duration 5] [--rounds 3] [--connections 10] [--storage pglite,postgres] [--candidates 1000] [--only=<word>] [--smoke]`
 *
 * Starts the real token service and recruiting API (`hirebridge serve token api`) in a child
 * process per storage kind (PGlite on disk under a temp DATA_DIR; Postgres in a fresh schema of
 * BENCH_DATABASE_URL, default the local `test` database, dropped after), logs in as the demo user,
 * seeds a position with 1,000 candidates through the API, then load-tests from this process with
 * autocannon: GET /healthz of the same server (baseline), GET one position, the list of 1,000
 * candidates, and candidate creation. Scenarios are interleaved round by round; the table reports
 * medians over the rounds. `--only=<word>` runs the baseline and the scenarios whose name holds the
 * word. Everything binds to 127.0.0.1 and stops by itself.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { dropSchemas } from "../src/shared/db/pg-schemas.js";
import {
  assertAnswers,
  autocannon,
  freePort,
  median,
  MemoryReport,
  option,
  profileFlags,
  ROOT,
  settings,
  waitHealthy,
  type AutocannonResult as Result,
  type Settings,
} from "./lib.js";

const DEMO_ORG = "6d3f1e2a-9b4c-4f7e-8a1d-2c5b7e9f0a13"; // DEMO_ORG_ID default of the run contract

type Server = { api: string; auth: string; pid: number | undefined; stop(): Promise<void> };

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
  Object.assign(env, { RATE_LIMIT_PER_MINUTE: "0", TOKEN_RATE_LIMIT_PER_MINUTE: "0" });
  const dataDir = mkdtempSync(join(tmpdir(), "hirebridge-bench-"));
  env["DATA_DIR"] = dataDir;
  let dropSchema: (() => Promise<void>) | undefined;
  if (storage === "postgres") {
    const url = process.env["BENCH_DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";
    const schema = `bench_${randomBytes(4).toString("hex")}`;
    Object.assign(env, { DATABASE_URL: url, DATABASE_SCHEMA: schema });
    dropSchema = () => dropSchemas(url, schema);
  } else {
    delete env["DATABASE_URL"];
  }
  const child = spawn(process.execPath, [...profileFlags(), "--import", "tsx", "src/cli/main.ts", "serve", "token", "api"], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "ignore", "inherit"],
  });
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
  return { api: `http://127.0.0.1:${apiPort}`, auth: `http://127.0.0.1:${authPort}/realms/hirebridge`, pid: child.pid, stop };
}

async function demoToken(authUrl: string): Promise<string> {
  const res = await fetch(`${authUrl}/protocol/openid-connect/token`, {
    method: "POST",
    body: new URLSearchParams({
      grant_type: "password",
      client_id: "hirebridge",
      username: "demo",
      password: process.env["DEMO_PASSWORD"] ?? "demo-password",
    }),
  });
  if (!res.ok) throw new Error(`demo login failed: ${res.status}`);
  return ((await res.json()) as { access_token: string }).access_token;
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

type Scenario = { name: string; opts: Record<string, unknown> };

async function measure(storage: string, cfg: Settings & { candidates: number; only: string }, memory: MemoryReport) {
  const server = await startServer(storage);
  memory.idle(`serve token api (${storage})`, server.pid);
  try {
    const token = await demoToken(server.auth);
    const urls = await seed(server.api, token, cfg.candidates);
    const auth = { authorization: `Bearer ${token}` };
    let created = 0;
    const all: Scenario[] = [
      { name: "GET /healthz (baseline)", opts: { url: `${server.api}/healthz` } },
      { name: "GET one position", opts: { url: urls.position, headers: auth } },
      { name: `GET ${cfg.candidates.toLocaleString("en")} candidates`, opts: { url: urls.list, headers: auth } },
      {
        name: "POST candidate (create)",
        opts: {
          url: urls.create,
          method: "POST",
          headers: { ...auth, "content-type": "application/json" },
          requests: [
            {
              setupRequest: (req: Record<string, unknown>) => ({
                ...req,
                body: JSON.stringify({
                  name: "Load Test",
                  email: `load${created++}.${storage}@bench.test`,
                  phone: "+1 555 0101",
                  language: "en",
                }),
              }),
            },
          ],
        },
      },
    ];
    // The baseline always runs: the other rows are ratios to it.
    const scenarios = all.filter((s, i) => i === 0 || s.name.includes(cfg.only));
    const samples = new Map<string, Result[]>(scenarios.map((s) => [s.name, []]));
    for (const s of scenarios)
      assertAnswers(`${storage} ${s.name} (warm-up)`, await autocannon({ ...s.opts, connections: cfg.connections, duration: cfg.warmup }));
    for (let round = 0; round < cfg.rounds; round++) {
      for (const s of scenarios) {
        const r = await autocannon({ ...s.opts, connections: cfg.connections, duration: cfg.duration });
        assertAnswers(`${storage} ${s.name}, round ${round + 1}`, r);
        samples.get(s.name)!.push(r);
      }
    }
    memory.peaks();
    const baseline = median(samples.get(scenarios[0]!.name)!.map((r) => r.requests.average));
    return scenarios.map((s) => {
      const rs = samples.get(s.name)!;
      const rps = median(rs.map((r) => r.requests.average));
      return `| ${storage} | ${s.name} | ${rps.toFixed(0)} | ${median(rs.map((r) => r.latency.p50)).toFixed(1)} | ${median(rs.map((r) => r.latency.p99)).toFixed(1)} | ${((rps / baseline) * 100).toFixed(0)}% |`;
    });
  } finally {
    await server.stop();
  }
}

export async function main(args: string[]): Promise<void> {
  const base = settings(args, { rounds: 3, duration: 5, connections: 10 });
  const cfg = { ...base, candidates: Number(option(args, "candidates", base.smoke ? "100" : "1000")), only: option(args, "only", "") };
  const kinds = option(args, "storage", "pglite,postgres").split(",");
  const rows: string[] = [];
  const memory = new MemoryReport();
  for (const storage of kinds) rows.push(...(await measure(storage, cfg, memory)));
  process.stdout.write(
    [
      `Recruiting API, ${cfg.connections} connections, ${cfg.rounds} rounds × ${cfg.duration}s (medians); Node ${process.version}, ${cpus().length}× ${cpus()[0]?.model ?? "cpu"}`,
      "",
      "| storage | scenario | req/s | p50 ms | p99 ms | vs baseline |",
      "|---|---|---:|---:|---:|---:|",
      ...rows,
      "",
      ...memory.lines(),
      "",
    ].join("\n"),
  );
}
