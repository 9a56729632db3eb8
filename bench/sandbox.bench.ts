/**
 * `npm run bench -- sandbox [--rounds=3] [--duration=5] [--connections=10] [--applications=100000] [--smoke]`
 *
 * How fast the upstream sandbox serves list pages of 250 records over a 100,000-application
 * dataset, so it is never the bottleneck of the proxy and sync benchmarks. The sandbox runs in a
 * child process (autocannon does not share its event loop) on 127.0.0.1, with no latency, limits
 * or faults. Every scenario runs once per round, in the same order; the table reports medians:
 *   - baseline: `GET /healthz` of the same server (no auth, a tiny JSON body);
 *   - check-api-key: the /v1 guards (API key, rate limiter, fault check) and a tiny envelope;
 *   - applications, first page / a page near the end (cursor at ~99% of the list): the cost per
 *     page must not grow with the position (O(page), not O(n));
 *   - applications changed since a date (`updated_after`: served from the change log);
 *   - jobs, first page (each job embeds stages, postings and hiring team).
 */
import { fork, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { cpus, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { buildSandboxApp } from "../src/services/sandbox/app.js";
import { createLogger } from "../src/shared/http/logger.js";

import { assertAnswers, autocannon, median, MemoryReport, option, settings, type AutocannonResult } from "./lib.js";

type Result = AutocannonResult & { throughput: { average: number } };

const API_KEY = "bench-api-key";

type Ready = { origin: string; integrationId: string; generatedMs: number; heapMb: number };

/** Child: the sandbox with the benchmark dataset, until the parent says stop. */
async function serve(applications: number): Promise<void> {
  const started = performance.now();
  const { app, demoIntegrationId } = buildSandboxApp({
    logger: createLogger("silent"),
    seed: 42,
    applications,
    apiKey: API_KEY,
    webhookSecret: "bench",
    webhookUrl: null,
    demoOrgId: "6d3f1e2a-9b4c-4f7e-8a1d-2c5b7e9f0a13",
  });
  const generatedMs = performance.now() - started;
  await app.listen({ host: "127.0.0.1", port: 0 });
  const { port } = app.server.address() as { port: number };
  process.on("message", async (msg) => {
    if (msg !== "stop") return;
    await app.close();
    process.exit(0);
  });
  global.gc?.();
  process.send!({
    origin: `http://127.0.0.1:${port}`,
    integrationId: demoIntegrationId,
    generatedMs,
    heapMb: process.memoryUsage().heapUsed / 1e6,
  } satisfies Ready);
  await new Promise<never>(() => {});
}

/**
 * Pages through the whole list with one client, as a full sync does (cold: each record rendered
 * once); answers the time taken and the cursor of the last full page (~99% in).
 */
async function fullScan(
  ready: Ready,
  headers: Record<string, string>,
): Promise<{ cursor: string; position: number; ms: number; pages: number }> {
  let cursor: string | null = null;
  let seen = 0;
  let last = "";
  let pages = 0;
  const started = performance.now();
  for (;;) {
    const url: string = `${ready.origin}/v1/ats/applications?page_size=250${cursor ? `&cursor=${cursor}` : ""}`;
    const body = (await (await fetch(url, { headers })).json()) as { data: { next: string | null; results: unknown[] } };
    seen += body.data.results.length;
    pages++;
    if (!body.data.next) return { cursor: last, position: seen - body.data.results.length - 250, ms: performance.now() - started, pages };
    last = cursor ?? "";
    cursor = body.data.next;
  }
}

export async function main(args: string[]): Promise<void> {
  const { smoke, rounds, duration, connections, warmup } = settings(args, { rounds: 3, duration: 5, connections: 10, warmup: 1 });
  const applications = Number(option(args, "applications", smoke ? "2000" : "100000"));
  if (args.includes("--serve")) return serve(applications);

  const loadAtStart = loadavg()[0]!;
  const runner = fileURLToPath(new URL("./run.ts", import.meta.url));
  const child: ChildProcess = fork(runner, ["sandbox", "--serve", `--applications=${applications}`], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    execArgv: [...process.execArgv, "--expose-gc"],
  });
  const [ready] = (await once(child, "message")) as [Ready];
  const memory = new MemoryReport();
  memory.idle(`sandbox (${applications.toLocaleString("en")} applications)`, child.pid);
  try {
    const headers = { authorization: `Bearer ${API_KEY}`, "x-integration-id": ready.integrationId };
    const deep = await fullScan(ready, headers);
    const v1 = `${ready.origin}/v1`;
    // The most recently changed ~2,000 applications (the seed spreads changes over a year).
    const since = new Date(Date.parse("2026-01-01T00:00:00Z") - 3 * 86_400_000).toISOString();
    const scenarios: { name: string; url: string; auth: boolean }[] = [
      { name: "baseline: GET /healthz", url: `${ready.origin}/healthz`, auth: false },
      { name: "GET /v1/check-api-key", url: `${v1}/check-api-key`, auth: true },
      { name: "applications, first page of 250", url: `${v1}/ats/applications?page_size=250`, auth: true },
      {
        name: `applications, page of 250 at position ${deep.position.toLocaleString("en")}`,
        url: `${v1}/ats/applications?page_size=250&cursor=${deep.cursor}`,
        auth: true,
      },
      {
        name: "applications, 250 changed since a date (updated_after)",
        url: `${v1}/ats/applications?page_size=250&updated_after=${since}`,
        auth: true,
      },
      { name: "jobs, first page of 250", url: `${v1}/ats/jobs?page_size=250`, auth: true },
    ];
    const run = (s: (typeof scenarios)[number], seconds: number) =>
      autocannon({ url: s.url, ...(s.auth ? { headers } : {}), connections, duration: seconds }) as Promise<Result>;
    for (const s of scenarios) assertAnswers(`${s.name} (warm-up)`, await run(s, warmup)); // warm-up: JIT, the lazy change log

    const results = new Map<string, Result[]>(scenarios.map((s) => [s.name, []]));
    for (let round = 0; round < rounds; round++) {
      for (const s of scenarios) {
        const r = await run(s, duration);
        assertAnswers(`${s.name}, round ${round + 1}`, r);
        results.get(s.name)!.push(r);
      }
    }
    memory.peaks();
    const rows = scenarios.map((s) => {
      const rs = results.get(s.name)!;
      const rps = median(rs.map((r) => r.requests.average));
      return {
        name: s.name,
        rps,
        p50: median(rs.map((r) => r.latency.p50)),
        p99: median(rs.map((r) => r.latency.p99)),
        kb: median(rs.map((r) => r.throughput.average / r.requests.average / 1024)),
      };
    });
    const base = rows[0]!.rps;
    const out = [
      `Sandbox benchmark: ${applications.toLocaleString("en")} applications (generated in ${(ready.generatedMs / 1000).toFixed(1)} s, ${ready.heapMb.toFixed(0)} MB heap), ${rounds} rounds x ${duration} s, ${connections} connections`,
      `Machine: ${cpus().length} x ${cpus()[0]?.model ?? "cpu"}, Node ${process.version}, load average ${loadAtStart.toFixed(1)} at start, ${loadavg()[0]!.toFixed(1)} at end`,
      "",
      "| scenario | req/s (median) | records/s | p50 ms | p99 ms | KiB per answer | vs baseline |",
      "|---|---:|---:|---:|---:|---:|---:|",
      ...rows.map(
        (r, i) =>
          `| ${r.name} | ${r.rps.toFixed(0)} | ${i < 2 ? "" : (r.rps * 250).toFixed(0)} | ${r.p50} | ${r.p99} | ${r.kb.toFixed(1)} | ${(r.rps / base).toFixed(2)}x |`,
      ),
      "",
      `Full scan, one client, cold (every record rendered once): ${deep.pages} pages of 250 applications in ${(deep.ms / 1000).toFixed(1)} s = ${((deep.pages * 250) / (deep.ms / 1000)).toFixed(0)} records/s.`,
      "",
      ...memory.lines(),
    ];
    process.stdout.write(`${out.join("\n")}\n`);
  } finally {
    child.send("stop");
    await once(child, "exit");
  }
}
