/**
 * `npm run bench -- proxy [--duration 5] [--rounds 5] [--connections 32] [--page-size 25] [--serial 2000]
 *    [--storage postgres|pglite] [--upstream-latency-ms 0] [--load wrk|autocannon] [--layout both|shared|dedicated] [--smoke]`
 *
 * The same upstream request, `GET /ats/jobs?page_size=N` of the sandbox's demo integration, six
 * ways in one run: straight to the sandbox (the baseline), through the Hirebridge proxy (bearer JWT
 * checked on every request, tenancy, the upstream's API key added, the body streamed back), through
 * a plain nginx reverse proxy in front of the same sandbox (which only adds the API key), through
 * the least a Node proxy can be (node:http + undici's stream API, nothing else), and through two
 * anchors (bench/floors.ts): that forward in a bare Fastify, and the proxy's per-request contract
 * written with the libraries alone (what the work costs on Fastify without our code). The
 * sandbox runs in one child process, the token service and the proxy in another (`hirebridge serve
 * token proxy`; storage in a fresh schema of BENCH_DATABASE_URL, default the local `test` database,
 * dropped after, as a production proxy has it, or PGlite under a temp DATA_DIR with
 * `--storage pglite`), nginx as a foreground child with one worker, the Node floor in a third.
 *
 * Three measurements, interleaved round by round (medians over the rounds):
 * - throughput: `--connections` keep-alive connections for `--duration` seconds, from wrk when it
 *   is installed (a C load generator, so that on a small machine the load takes little of the CPU
 *   the servers share), else autocannon;
 * - CPU per request: CPU seconds the hop's process (and the sandbox) spent during that load, over
 *   the requests served (from /proc): what each hop costs, independent of what else the machine
 *   runs;
 * - latency: `--serial` requests one at a time over one keep-alive connection, timed with hrtime
 *   (autocannon's histogram has 1 ms resolution, too coarse for a proxy's added latency; wrk's
 *   single-connection figures were checked and are not usable here: their mean times their count
 *   came out longer than the run itself). "Added" is the median over the rounds of each round's
 *   difference to the direct path, as the ratios are.
 *
 * `--upstream-latency-ms` makes the sandbox answer that much later (SANDBOX_LATENCY_MS), as a real
 * upstream across a network does; 0 (the default) is the harshest case for any proxy, since its own
 * CPU is then all there is besides the sandbox's, on the same cores.
 *
 * Two CPU layouts, both measured in each round (`--layout` picks one):
 * - shared: every process may run on every core, so a hop's CPU is taken from the upstream and the
 *   load generator: throughput then compares the CPU the three cost together;
 * - dedicated: the hop under test alone on the last core (`taskset`), the sandbox, the load
 *   generator and the latency client on the others: the shape of a proxy instance in front of an
 *   upstream on other machines, where throughput compares what each hop can carry on one core.
 *
 * When nginx is not installed (/usr/sbin/nginx), its column is skipped and the table says so.
 * Everything binds to 127.0.0.1 and stops by itself.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, setPriority, tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Pool } from "undici";
import { dropSchemas } from "../src/shared/db/pg-schemas.js";
import {
  assertAnswers,
  autocannon,
  cpuSeconds,
  freePort,
  machine,
  median,
  MemoryReport,
  option,
  ROOT,
  serveChild,
  settings,
  slowHopFlags,
  waitHealthy,
} from "./lib.js";
import { startFloor } from "./floors.js";
import { enforceGuard, GUARD_BOUNDS, guardLines, type GuardRow } from "./guard.js";

const NGINX = "/usr/sbin/nginx";
const API_KEY = "bench-api-key";

type Child = { child: ChildProcess; stop(): Promise<void> };

function start(command: string, args: string[]): Child {
  const child = spawn(command, args, { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });
  return {
    child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

function nginxConfig(dir: string, port: number, sandboxPort: number): string {
  const temp = (name: string) => `${name}_temp_path ${join(dir, name)};`;
  return `worker_processes 1;
daemon off;
pid ${join(dir, "nginx.pid")};
error_log ${join(dir, "error.log")} warn;
events { worker_connections 4096; }
http {
  access_log off;
  keepalive_requests 1000000; # the default (1000) closes load-test connections mid-run
  ${["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map(temp).join("\n  ")}
  upstream sandbox { server 127.0.0.1:${sandboxPort}; keepalive 64; keepalive_requests 1000000; }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://sandbox;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Authorization "Bearer ${API_KEY}";
    }
  }
}
`;
}

/** A path under test; `pids` are the processes of its hop (none for the direct path). */
type Target = { name: string; url: string; headers: Record<string, string>; pids: () => number[] };

/** The direct children of a process (nginx's worker under its master). */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const ppid = Number(readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1]!.split(" ")[1]);
      if (ppid === pid) out.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

type Load = { requests: number; seconds: number; failures: string | undefined };

const run = promisify(execFile);

type Layout = "shared" | "dedicated";

/** Restricts every thread of `pids` to `cpus` (a taskset list such as "0" or "0-2"). */
async function pin(pids: number[], cpus: string): Promise<void> {
  for (const pid of pids) await run("taskset", ["-a", "-p", "-c", cpus, String(pid)]);
}

/** wrk: one thread, `connections` connections; the count of answers and any failures it reports. */
async function wrk(target: Target, connections: number, duration: number): Promise<Load> {
  const headers = Object.entries(target.headers).flatMap(([k, v]) => ["-H", `${k}: ${v}`]);
  const { stdout } = await run("wrk", ["-t1", `-c${connections}`, `-d${duration}s`, ...headers, target.url]);
  const requests = Number(/(\d+) requests in ([\d.]+)(m?s)/.exec(stdout)?.[1]);
  const [, amount, unit] = /requests in ([\d.]+)(m?s)/.exec(stdout) ?? [];
  const seconds = Number(amount) / (unit === "ms" ? 1000 : 1);
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1];
  const socket = /Socket errors: (.*)/.exec(stdout)?.[1];
  const failures = [non2xx ? `${non2xx} non-2xx` : "", socket ? `socket errors: ${socket}` : ""].filter(Boolean).join(", ");
  return { requests, seconds, failures: failures || undefined };
}

async function autocannonLoad(target: Target, connections: number, duration: number): Promise<Load> {
  const r = await autocannon({ url: target.url, headers: target.headers, connections, duration, pipelining: 1 });
  let failures: string | undefined;
  try {
    assertAnswers(target.name, r);
  } catch (err) {
    failures = (err as Error).message;
  }
  return { requests: r.requests.total, seconds: duration, failures };
}

/** `count` requests one after another on one connection; durations in ms. */
async function serial(target: Target, count: number): Promise<number[]> {
  const url = new URL(target.url);
  const pool = new Pool(url.origin, { connections: 1 });
  const out: number[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const started = process.hrtime.bigint();
      const res = await pool.request({ method: "GET", path: `${url.pathname}${url.search}`, headers: target.headers });
      await res.body.dump();
      if (res.statusCode !== 200) throw new Error(`${target.name}: HTTP ${res.statusCode}`);
      out.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
  } finally {
    await pool.close();
  }
  return out;
}

const percentile = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)]!;

export async function main(args: string[]): Promise<void> {
  const { smoke, duration, rounds, connections, warmup } = settings(args, { rounds: 5, duration: 5, connections: 32 });
  const pageSize = Number(option(args, "page-size", "25"));
  const serialCount = Number(option(args, "serial", smoke ? "50" : "2000"));
  const upstreamLatency = Number(option(args, "upstream-latency-ms", "0"));
  const storage = option(args, "storage", "postgres");
  const cpuCount = availableParallelism();
  const hasTaskset = await run("taskset", ["--version"]).then(
    () => true,
    () => false,
  );
  const wanted = option(args, "layout", smoke ? "shared" : "both");
  if (!["both", "shared", "dedicated"].includes(wanted)) throw new Error(`--layout: both, shared or dedicated (got ${wanted})`);
  const layouts = (wanted === "both" ? ["shared", "dedicated"] : [wanted]).filter((layout): layout is Layout => {
    if (layout !== "dedicated" || (cpuCount >= 2 && hasTaskset)) return true;
    process.stderr.write(
      `dedicated layout skipped: it needs 2 cores or more and taskset (${cpuCount} cores, taskset ${hasTaskset ? "present" : "missing"})\n`,
    );
    return false;
  });
  if (layouts.length === 0) throw new Error("no CPU layout to measure");
  const allCpus = `0-${cpuCount - 1}`;
  const hopCpu = String(cpuCount - 1);
  const otherCpus = cpuCount > 2 ? `0-${cpuCount - 2}` : "0";
  const hasWrk = await run("wrk", ["--version"]).then(
    () => true,
    (err: { stdout?: string; stderr?: string }) => /^wrk /m.test(`${err.stdout}${err.stderr}`), // `wrk --version` exits 1
  );
  const loadGenerator = option(args, "load", hasWrk ? "wrk" : "autocannon");
  if (!hasWrk)
    process.stderr.write(
      "wrk not found (apt-get install -y wrk): load comes from autocannon, which takes more of the CPU the servers share\n",
    );
  // On a shared machine, neighbours' work skews a multi-process benchmark (the proxy path wakes
  // three processes per request, the direct one two). Raise this process's priority when allowed;
  // the servers started below inherit it.
  let priority = "normal priority";
  try {
    setPriority(-10);
    priority = "nice -10";
  } catch {
    // not permitted: run at normal priority
  }
  const hasNginx = existsSync(NGINX);
  if (!hasNginx) process.stderr.write(`nginx not found at ${NGINX} (apt-get install -y nginx): the nginx column is skipped\n`);

  const dir = mkdtempSync(join(tmpdir(), "hirebridge-proxy-bench-"));
  const [sandboxPort, proxyPort, authPort, nginxPort] = (await Promise.all(Array.from({ length: 4 }, () => freePort()))) as [
    number,
    number,
    number,
    number,
  ];
  const env: Record<string, string> = {
    HOST: "127.0.0.1",
    LOG_LEVEL: "silent",
    SANDBOX_PORT: String(sandboxPort),
    SANDBOX_LATENCY_MS: String(upstreamLatency),
    PROXY_PORT: String(proxyPort),
    AUTH_PORT: String(authPort),
    UPSTREAM_API_KEY: API_KEY,
    DATA_DIR: dir,
    WORKERS: "false",
    RATE_LIMIT_PER_MINUTE: "0", // a benchmark is one caller far above any per-caller limit
    RATE_LIMIT_ORG_PER_MINUTE: "0",
    TOKEN_RATE_LIMIT_PER_MINUTE: "0",
    SANDBOX_WEBHOOK_URL: "http://127.0.0.1:9/unused", // no webhooks during the run
  };
  let dropSchema: (() => Promise<void>) | undefined;
  if (storage === "postgres") {
    const url = process.env["BENCH_DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";
    const schema = `bench_proxy_${randomBytes(4).toString("hex")}`;
    Object.assign(env, { DATABASE_URL: url, DATABASE_SCHEMA: schema });
    dropSchema = () => dropSchemas(url, schema);
  }
  const children: { stop(): Promise<void> }[] = [];
  try {
    const sandbox = serveChild(["sandbox"], env);
    children.push(sandbox);
    const proxy = serveChild(["token", "proxy"], env, slowHopFlags());
    children.push(proxy);
    await waitHealthy(`http://127.0.0.1:${sandboxPort}/healthz`, sandbox.child);
    await waitHealthy(`http://127.0.0.1:${proxyPort}/healthz`, proxy.child);
    const memory = new MemoryReport();
    memory.idle("sandbox", sandbox.child.pid);
    memory.idle(`serve token proxy (${storage})`, proxy.child.pid);
    // The floor of any Node proxy on this machine (bench/floors.ts): node:http in, undici's stream
    // API out, no auth, no routing, no validation: how much of the gap to nginx is a Node hop itself.
    const floor = await startFloor("http+undici", { upstream: `http://127.0.0.1:${sandboxPort}`, apiKey: API_KEY });
    children.push(floor);
    // The same forward in a bare Fastify (bench/floors.ts): what the framework alone costs over the floor.
    const anchor = await startFloor("fastify+undici", { upstream: `http://127.0.0.1:${sandboxPort}`, apiKey: API_KEY });
    children.push(anchor);
    // The same work as our hop's (bearer, request id, query schema, tenancy, headers, metrics) with
    // the libraries alone (bench/floors.ts): what the contract costs on Fastify, without our code.
    const contract = await startFloor("fastify+contract", {
      upstream: `http://127.0.0.1:${sandboxPort}`,
      apiKey: API_KEY,
      realm: `http://127.0.0.1:${authPort}/realms/hirebridge`,
    });
    children.push(contract);
    let nginx: Child | undefined;
    if (hasNginx) {
      writeFileSync(join(dir, "nginx.conf"), nginxConfig(dir, nginxPort, sandboxPort));
      nginx = start(NGINX, ["-c", join(dir, "nginx.conf"), "-p", dir]);
      children.push(nginx);
      await waitHealthy(`http://127.0.0.1:${nginxPort}/healthz`, nginx.child);
    }

    const integrationId = (
      (await (await fetch(`http://127.0.0.1:${sandboxPort}/sandbox/integrations`)).json()) as { demo_integration_id: string }
    ).demo_integration_id;
    const token = await fetch(`http://127.0.0.1:${authPort}/realms/hirebridge/protocol/openid-connect/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "password", client_id: "hirebridge", username: "demo", password: "demo-password" }),
    });
    if (token.status !== 200) throw new Error(`password grant: ${token.status} ${await token.text()}`);
    const accessToken = ((await token.json()) as { access_token: string }).access_token;
    const upstreamPath = `/v1/ats/jobs?page_size=${pageSize}`;
    const xi = { "x-integration-id": integrationId };
    const nginxPid = nginx?.child.pid ?? -1;
    const pid = (c: Child) => () => (c.child.pid ? [c.child.pid] : []);
    const targets: Target[] = [
      {
        name: "direct (sandbox)",
        url: `http://127.0.0.1:${sandboxPort}${upstreamPath}`,
        headers: { ...xi, authorization: `Bearer ${API_KEY}` },
        pids: () => [],
      },
      {
        name: "Hirebridge proxy (JWT)",
        url: `http://127.0.0.1:${proxyPort}/api/v1/ats/jobs?integration_id=${encodeURIComponent(integrationId)}&page_size=${pageSize}`,
        headers: { authorization: `Bearer ${accessToken}` },
        pids: pid(proxy),
      },
      ...(nginx
        ? [{ name: "nginx (1 worker)", url: `http://127.0.0.1:${nginxPort}${upstreamPath}`, headers: xi, pids: () => childrenOf(nginxPid) }]
        : []),
      {
        name: "Node floor (http + undici, no auth)",
        url: `${floor.url}${upstreamPath}`,
        headers: xi,
        pids: () => (floor.pid ? [floor.pid] : []),
      },
      {
        name: "Fastify anchor (bare Fastify + undici, no auth, no hooks)",
        url: `${anchor.url}${upstreamPath}`,
        headers: xi,
        pids: () => (anchor.pid ? [anchor.pid] : []),
      },
      {
        name: "Contract anchor (Fastify + undici + the same per-request work, libraries only)",
        url: `${contract.url}/api/v1/ats/jobs?integration_id=${encodeURIComponent(integrationId)}&page_size=${pageSize}`,
        headers: { authorization: `Bearer ${accessToken}` },
        pids: () => (contract.pid ? [contract.pid] : []),
      },
    ];
    const bytes = (await (await fetch(targets[0]!.url, { headers: targets[0]!.headers })).text()).length;
    for (const t of targets) await serial(t, smoke ? 20 : 200); // warm-up: JIT, connection pools, the proxy's owner lookup

    const load = loadGenerator === "wrk" ? wrk : autocannonLoad;
    // Warm-up under load too: the CPU per request of the first second of a cold process is mostly JIT.
    for (const t of targets) await load(t, connections, warmup);

    const sandboxPid = sandbox.child.pid ?? -1;
    const hopPids = () => targets.flatMap((t) => t.pids());
    /** Puts every process where the layout wants it (wrk, started by this process, inherits its affinity). */
    const arrange = async (layout: Layout) => {
      const [hop, others] = layout === "dedicated" ? [hopCpu, otherCpus] : [allCpus, allCpus];
      await pin(hopPids(), hop);
      await pin([sandboxPid, process.pid], others);
    };
    const key = (layout: Layout, t: Target) => `${layout}:${t.name}`;
    const series = () => new Map<string, number[]>();
    const [rps, hopCpuUs, hopBusy, sandboxCpu, p50, p99] = [series(), series(), series(), series(), series(), series()];
    const push = (map: Map<string, number[]>, k: string, v: number) => map.set(k, [...(map.get(k) ?? []), v]);
    for (let round = 1; round <= rounds; round++) {
      for (const layout of layouts) {
        if (hasTaskset) await arrange(layout);
        for (const t of targets) {
          const pids = t.pids();
          const cpu = () => pids.reduce((sum, p) => sum + cpuSeconds(p), 0);
          const [hop0, sandbox0] = [cpu(), cpuSeconds(sandboxPid)];
          const r = await load(t, connections, duration);
          if (r.failures) throw new Error(`${t.name}: ${r.failures}`);
          const k = key(layout, t);
          push(rps, k, r.requests / r.seconds);
          push(hopCpuUs, k, ((cpu() - hop0) / r.requests) * 1e6);
          push(hopBusy, k, ((cpu() - hop0) / r.seconds) * 100);
          push(sandboxCpu, k, ((cpuSeconds(sandboxPid) - sandbox0) / r.requests) * 1e6);
          const lat = await serial(t, serialCount);
          push(p50, k, percentile(lat, 50));
          push(p99, k, percentile(lat, 99));
        }
      }
      process.stderr.write(`round ${round}/${rounds} done\n`);
    }
    if (hasTaskset) await pin([...hopPids(), sandboxPid, process.pid], allCpus);
    memory.peaks();

    const base = targets[0]!;
    const nginxTarget = targets.find((t) => t.name.startsWith("nginx"));
    const layoutNote: Record<Layout, string> = {
      shared: "shared: every process on every core",
      dedicated: `dedicated: the hop alone on core ${hopCpu}; sandbox, load generator and latency client on core${cpuCount > 2 ? "s" : ""} ${otherCpus}`,
    };
    const lines = [
      `Proxy benchmark: GET /ats/jobs?page_size=${pageSize} (${bytes} bytes), upstream latency ${upstreamLatency} ms, ${machine()}`,
      `throughput: ${loadGenerator}, ${connections} connections × ${duration} s; latency: ${serialCount} sequential requests; medians of ${rounds} rounds; proxy storage: ${storage}; ${priority}`,
    ];
    for (const layout of layouts) {
      const m = (map: Map<string, number[]>, t: Target) => median(map.get(key(layout, t))!);
      lines.push(
        "",
        `CPU layout ${layoutNote[layout]}`,
        "",
        "| path | req/s | vs direct | vs nginx | hop CPU µs/req | hop CPU % | sandbox CPU µs/req | p50 ms | p99 ms | added p50 ms | added p99 ms |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ...targets.map((t) => {
          // Per-round comparisons, then their median: the paths of one round are measured seconds
          // apart, so a shared machine's drift over minutes cancels out of each.
          const perRound = (map: Map<string, number[]>, other: Target, f: (mine: number, theirs: number) => number) => {
            const theirs = map.get(key(layout, other))!;
            return median(map.get(key(layout, t))!.map((v, i) => f(v, theirs[i]!)));
          };
          const ratio = (other: Target | undefined) => (other ? `${(perRound(rps, other, (a, b) => a / b) * 100).toFixed(0)}%` : "n/a");
          const added = (map: Map<string, number[]>) => (t === base ? "–" : perRound(map, base, (a, b) => a - b).toFixed(3));
          const hop = (map: Map<string, number[]>) => (t === base ? "–" : m(map, t).toFixed(0));
          return `| ${t.name} | ${m(rps, t).toFixed(0)} | ${ratio(base)} | ${ratio(nginxTarget)} | ${hop(hopCpuUs)} | ${hop(hopBusy)} | ${m(sandboxCpu, t).toFixed(0)} | ${m(p50, t).toFixed(3)} | ${m(p99, t).toFixed(3)} | ${added(p50)} | ${added(p99)} |`;
        }),
      );
    }
    // Against its floor, per layout (issue 32's targets): throughput ≥ 0.9x, hop CPU ≤ 1.3x, added
    // p99 < 1 ms shared and < 0.5 ms dedicated.
    const ours = targets.find((t) => t.name.startsWith("Hirebridge"))!;
    const floorTarget = targets.find((t) => t.name.startsWith("Node floor"))!;
    const anchorTarget = targets.find((t) => t.name.startsWith("Fastify anchor"))!;
    const contractTarget = targets.find((t) => t.name.startsWith("Contract anchor"))!;
    const guard: GuardRow[] = [];
    lines.push(
      "",
      "Against the proxy floor (node:http + undici, same run, same load generator and connections); the Fastify anchor is the floor's forward in a bare Fastify route; the contract anchor does our hop's per-request work with the libraries alone:",
      "",
      "| layout | proxy req/s | floor req/s | ratio (target ≥ 0.9x) | proxy p99 ms | floor p99 ms | added p99 ms (target) | proxy CPU µs/req | floor CPU µs/req | nginx CPU µs/req | CPU ratio (target ≤ 1.3x) | Fastify anchor: ratio, CPU µs/req | contract anchor: ratio, CPU µs/req |",
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
      ...layouts.map((layout) => {
        const series = (map: Map<string, number[]>, t: Target) => map.get(key(layout, t))!;
        const perRound = (map: Map<string, number[]>, f: (a: number, b: number) => number, t: Target = ours) =>
          median(series(map, t).map((v, i) => f(v, series(map, floorTarget)[i]!)));
        const m = (map: Map<string, number[]>, t: Target) => median(series(map, t));
        const addedP99 = median(series(p99, ours).map((v, i) => v - series(p99, base)[i]!));
        const nginxCpu = nginxTarget ? m(hopCpuUs, nginxTarget).toFixed(0) : "n/a";
        if (layout === layouts[0])
          guard.push({
            row: `proxy (${layout})`,
            floor: "node:http + undici",
            oursCpuUs: m(hopCpuUs, ours),
            floorCpuUs: m(hopCpuUs, floorTarget),
            ratios: series(hopCpuUs, ours).map((v, i) => v / series(hopCpuUs, floorTarget)[i]!),
            bound: GUARD_BOUNDS.proxy,
          });
        return `| ${layout} | ${m(rps, ours).toFixed(0)} | ${m(rps, floorTarget).toFixed(0)} | ${perRound(rps, (a, b) => a / b).toFixed(2)}x | ${m(p99, ours).toFixed(3)} | ${m(p99, floorTarget).toFixed(3)} | ${addedP99.toFixed(3)} (< ${layout === "shared" ? "1" : "0.5"}) | ${m(hopCpuUs, ours).toFixed(0)} | ${m(hopCpuUs, floorTarget).toFixed(0)} | ${nginxCpu} | ${perRound(hopCpuUs, (a, b) => a / b).toFixed(2)}x | ${perRound(rps, (a, b) => a / b, anchorTarget).toFixed(2)}x, ${m(hopCpuUs, anchorTarget).toFixed(0)} | ${perRound(rps, (a, b) => a / b, contractTarget).toFixed(2)}x, ${m(hopCpuUs, contractTarget).toFixed(0)} |`;
      }),
      "",
      ...guardLines(guard),
    );
    lines.push("", ...memory.lines());
    if (!hasNginx) lines.push("", `nginx: not installed (${NGINX}); install with \`apt-get install -y nginx\` for the comparison.`);
    process.stdout.write(`${lines.join("\n")}\n`);
    enforceGuard(args, guard);
  } finally {
    for (const c of children.reverse()) await c.stop();
    await dropSchema?.();
    rmSync(dir, { recursive: true, force: true });
  }
}
