/**
 * `npm run bench -- scale [--part throughput|tenants] [--duration 5] [--rounds 3] [--connections 20] [--page-size 5]`
 * (the tenants part, issue 43, and its options: scale-tenants.ts)
 *
 * Throughput of one instance against two, for the recruiting API and the integration proxy, in
 * the production shape: every service a separate `hirebridge serve` process on one Postgres (a
 * fresh schema of BENCH_DATABASE_URL, default the local `test` database, dropped after) and one
 * Redis (BENCH_REDIS_URL, default 127.0.0.1:6379), trusting the token process as its issuer. One
 * process runs the token service and the sandbox; two run `serve api`, two `serve proxy`; all stay
 * up the whole run. The load comes from this process: autocannon with `--connections` keep-alive
 * connections in all, against one instance, or split in half over both (two autocannon runs at
 * once, the way a balancer spreads it, without a balancer process on the same cores).
 *
 * Scenarios, interleaved round by round after a warm-up, medians over the rounds:
 * - `GET /healthz` of the API (the baseline: the framework and one `select 1`);
 * - `GET /api/v1/org/{org}/position/{id}` (bearer JWT checked, one query);
 * - proxy `GET /api/v1/ats/jobs?integration_id=…&page_size=N` (bearer JWT, tenancy, one sandbox call).
 *
 * Besides req/s and latency, each row gives the CPU (in cores) the instances under load used, the
 * token/sandbox process's (the proxy's upstream), Postgres's, the load generator's own, and how busy the
 * machine's cores were (from /proc), because on a small machine that, not the number of instances,
 * is what bounds throughput. Any non-2xx, error or timeout aborts.
 * Everything binds to 127.0.0.1 and stops by itself.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { dropSchemas } from "../src/shared/db/pg-schemas.js";
import {
  autocannon,
  cpuSeconds,
  DEMO_ORG,
  freePort,
  machine,
  median,
  option,
  serveChild,
  sharedStackEnv,
  waitHealthy,
  type AutocannonResult,
} from "./lib.js";
import { tenantsMain } from "./scale-tenants.js";

type Served = ReturnType<typeof serveChild> & { origin: string };
type Scenario = { service: string; what: string; instances: Served[]; path: string; auth: boolean };
type Measure = {
  rps: number;
  p50: number;
  p99: number;
  instanceCpu: number;
  coreCpu: number;
  postgresCpu: number;
  generatorCpu: number;
  busy: number;
};

/** CPU seconds of each Postgres server process (the postmaster and its backends: one per connection). */
function postgresSeconds(): Map<number, number> {
  const seconds = new Map<number, number>();
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "postgres") seconds.set(Number(pid), cpuSeconds(Number(pid)));
    } catch {
      // the process ended meanwhile
    }
  }
  return seconds;
}

/** CPU Postgres used between two readings: backends that ended meanwhile are not counted (an undercount). */
const postgresDelta = (before: Map<number, number>, after: Map<number, number>) =>
  [...after].reduce((n, [pid, s]) => n + s - (before.get(pid) ?? 0), 0);

/** Busy and total jiffies of all cores, from /proc/stat. */
function machineTicks(): { busy: number; total: number } {
  const [, ...nums] = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/);
  const v = nums.map(Number);
  const total = v.reduce((a, b) => a + b, 0);
  return { busy: total - (v[3] ?? 0) - (v[4] ?? 0), total };
}

async function run(s: Scenario, opts: { duration: number; connections: number; token: string; core: Served }): Promise<Measure> {
  const per = Math.max(1, Math.floor(opts.connections / s.instances.length));
  const before = {
    cpu: s.instances.map((i) => cpuSeconds(i.child.pid)),
    core: cpuSeconds(opts.core.child.pid),
    postgres: postgresSeconds(),
    gen: process.cpuUsage(),
    ticks: machineTicks(),
    at: process.hrtime.bigint(),
  };
  const results: AutocannonResult[] = await Promise.all(
    s.instances.map((i) =>
      autocannon({
        url: `${i.origin}${s.path}`,
        connections: per,
        duration: opts.duration,
        headers: s.auth ? { authorization: `Bearer ${opts.token}` } : {},
      }),
    ),
  );
  const seconds = Number(process.hrtime.bigint() - before.at) / 1e9;
  const ticks = machineTicks();
  const gen = process.cpuUsage(before.gen);
  for (const r of results) {
    if (r.non2xx || r.errors || r.timeouts)
      throw new Error(`${s.service} ${s.what} ×${s.instances.length}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts`);
  }
  const total = results.reduce((n, r) => n + r.requests.total, 0);
  return {
    rps: results.reduce((n, r) => n + r.requests.average, 0),
    p50: results.reduce((n, r) => n + r.latency.p50 * r.requests.total, 0) / Math.max(1, total),
    p99: Math.max(...results.map((r) => r.latency.p99)),
    instanceCpu: s.instances.reduce((n, i, k) => n + cpuSeconds(i.child.pid) - before.cpu[k]!, 0) / seconds,
    coreCpu: (cpuSeconds(opts.core.child.pid) - before.core) / seconds,
    postgresCpu: postgresDelta(before.postgres, postgresSeconds()) / seconds,
    generatorCpu: (gen.user + gen.system) / 1e6 / seconds,
    busy: (ticks.busy - before.ticks.busy) / Math.max(1, ticks.total - before.ticks.total),
  };
}

async function json<T>(
  url: string,
  init: { method?: string; token?: string; body?: unknown; form?: Record<string, string> } = {},
): Promise<T> {
  const res = await fetch(url, {
    method: init.method ?? (init.body || init.form ? "POST" : "GET"),
    headers: {
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      ...(init.body ? { "content-type": "application/json" } : {}),
      ...(init.form ? { "content-type": "application/x-www-form-urlencoded" } : {}),
    },
    ...(init.body ? { body: JSON.stringify(init.body) } : init.form ? { body: new URLSearchParams(init.form) } : {}),
  });
  if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/**
 * `--part throughput` (the scale-out throughput above), `--part tenants` (many organisations, fair
 * queues: scale-tenants.ts), or both (the default). `--smoke` runs the tenants part's smoke mode.
 */
export async function main(args: string[]): Promise<void> {
  const part = option(args, "part", args.includes("--smoke") ? "tenants" : "all");
  if (part === "throughput" || part === "all") await throughput(args);
  if (part === "tenants" || part === "all") await tenantsMain(args);
}

async function throughput(args: string[]): Promise<void> {
  const duration = Number(option(args, "duration", "5"));
  const rounds = Number(option(args, "rounds", "3"));
  const connections = Number(option(args, "connections", "20"));
  const pageSize = option(args, "page-size", "5");
  const databaseUrl = process.env["BENCH_DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";
  const schema = `bench_scale_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  const dataDir = mkdtempSync(join(tmpdir(), "hirebridge-bench-scale-"));
  const [authPort, sandboxPort, ...ports] = await Promise.all(Array.from({ length: 6 }, () => freePort()));
  const env = sharedStackEnv({ databaseUrl, schema, dataDir, authPort: authPort!, sandboxPort: sandboxPort! });

  const serve = (services: string[], port: number, extra: Record<string, string>): Served => ({
    ...serveChild(services, { ...env, ...extra }),
    origin: `http://127.0.0.1:${port}`,
  });
  const core = serve(["token", "sandbox"], authPort!, {});
  const apis = [0, 1].map((k) => serve(["api"], ports[k]!, { API_PORT: String(ports[k]) }));
  const proxies = [2, 3].map((k) => serve(["proxy"], ports[k]!, { PROXY_PORT: String(ports[k]) }));
  const all = [core, ...apis, ...proxies];
  try {
    await Promise.all([
      waitHealthy(`${core.origin}/healthz`, core.child),
      waitHealthy(`http://127.0.0.1:${sandboxPort}/healthz`, core.child),
      ...[...apis, ...proxies].map((s) => waitHealthy(`${s.origin}/healthz`, s.child)),
    ]);
    const { access_token: token } = await json<{ access_token: string }>(`${core.origin}/realms/hirebridge/protocol/openid-connect/token`, {
      form: { grant_type: "password", client_id: "hirebridge", username: "demo", password: "demo-password" },
    });
    const position = await json<{ id: string }>(`${apis[0]!.origin}/api/v1/org/${DEMO_ORG}/position`, {
      token,
      body: { name: "Scale benchmark" },
    });
    const { demo_integration_id: integration } = await json<{ demo_integration_id: string }>(
      `http://127.0.0.1:${sandboxPort}/sandbox/integrations`,
    );
    const jobsPath = `/api/v1/ats/jobs?integration_id=${encodeURIComponent(integration)}&page_size=${pageSize}`;
    // Each proxy learns the demo integration's owner once (adoption), outside the measurement.
    for (const p of proxies) await json(`${p.origin}${jobsPath}`, { token });

    const scenarios: Scenario[] = [];
    for (const n of [1, 2])
      scenarios.push({ service: "api", what: "GET /healthz (baseline)", instances: apis.slice(0, n), path: "/healthz", auth: false });
    for (const n of [1, 2])
      scenarios.push({
        service: "api",
        what: "GET one position",
        instances: apis.slice(0, n),
        path: `/api/v1/org/${DEMO_ORG}/position/${position.id}`,
        auth: true,
      });
    for (const n of [1, 2])
      scenarios.push({
        service: "proxy",
        what: `GET /ats/jobs (page_size ${pageSize})`,
        instances: proxies.slice(0, n),
        path: jobsPath,
        auth: true,
      });

    const load = loadavg()[0]!.toFixed(1);
    for (const s of scenarios) await run(s, { duration: 2, connections, token, core }); // warm-up
    const measured = new Map<Scenario, Measure[]>(scenarios.map((s) => [s, []]));
    for (let r = 0; r < rounds; r++) for (const s of scenarios) measured.get(s)!.push(await run(s, { duration, connections, token, core }));

    const med = (s: Scenario, k: keyof Measure) => median(measured.get(s)!.map((m) => m[k]));
    const lines = [
      `Machine: ${machine()}, ${cpus().length} cores shared by the load generator, the instances, the token/sandbox process, Postgres and Redis.`,
      `Load: ${connections} keep-alive connections in all (split in half over two instances), ${duration} s × ${rounds} rounds, medians; load average ${load} at the start, ${loadavg()[0]!.toFixed(1)} at the end.`,
      "",
      "| service | scenario | instances | req/s | vs 1 instance | p50 ms | p99 ms | instances' CPU | token+sandbox CPU | Postgres CPU | load generator CPU | machine busy |",
      "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ];
    for (const s of scenarios) {
      const one = scenarios.find((x) => x.what === s.what && x.instances.length === 1)!;
      lines.push(
        `| ${s.service} | ${s.what} | ${s.instances.length} | ${med(s, "rps").toFixed(0)} | ${((med(s, "rps") / med(one, "rps")) * 100).toFixed(0)}% | ` +
          `${med(s, "p50").toFixed(1)} | ${med(s, "p99").toFixed(1)} | ${med(s, "instanceCpu").toFixed(2)} | ${med(s, "coreCpu").toFixed(2)} | ${med(s, "postgresCpu").toFixed(2)} | ${med(s, "generatorCpu").toFixed(2)} | ${(med(s, "busy") * 100).toFixed(0)}% |`,
      );
    }
    process.stdout.write(`${lines.join("\n")}\n`);
  } finally {
    await Promise.all(all.map((s) => s.stop()));
    await dropSchemas(databaseUrl, schema).catch(() => {});
    await admin.end();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
