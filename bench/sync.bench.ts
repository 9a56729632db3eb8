/**
 * `npm run bench -- sync [--smoke] [--applications 100000] [--changes 1000] [--storage pglite,postgres] [--rounds 3] [--duration 5] [--connections 20] [--rate-limit N] [--only=sync|ingestion]`
 *
 * Per storage kind (PGlite in a temp directory, or a fresh schema of BENCH_DATABASE_URL, dropped after):
 * 1. Full sync of the sandbox's demo integration holding `--applications` applications (the
 *    sandbox and the syncing process each a child process running the built dist/ with
 *    production's Node flags, as `npm start` runs code): jobs, then the applications in each
 *    linked position's candidate stage, written as positions and candidates. Baselines of the same
 *    round: plain sequential HTTP paging (fetch + JSON.parse) of exactly the pages the sync read,
 *    and the engine's own pass with a store that writes nothing. Peak RSS of the syncing process
 *    and of the whole stack (it + the sandbox; Postgres's own processes not counted), from the
 *    moment the syncing process has loaded and released its start-up memory, as a serving process
 *    does once it listens.
 * 2. Incremental sync after `--changes` applications moved into the candidate stage upstream,
 *    against plain paging of the pages it read (the changed records), right after it. It runs
 *    `--rounds` times on the last round's database, each time after changes of its own, reading
 *    the changes since the run before it (no checkpoint margin); the row is their medians.
 * 3. Webhook ingestion: the proxy (job workers off) acknowledging signed data-changed events, each
 *    stored durably before its 200, vs GET /healthz of the same server. Fails if any event is
 *    refused or an acknowledged one is not stored.
 * 4. Backlog drain: a proxy with its job workers started on the events stored in 3; the time until
 *    every one is processed.
 * `--only=sync|ingestion`: one part (1 and 2, or 3 and 4).
 * `--smoke`: 2,000 applications, 100 changes, one round of 1 s, for CI (seconds).
 * `--rate-limit N`: the proxy's RATE_LIMIT_PER_MINUTE (default: the configuration's default).
 */
import { spawn } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { stripTypeScriptTypes } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { buildProxyWithSync } from "../src/runtime/wiring.js";
import { recordIntegration } from "../src/services/proxy/integrations/integrations.repository.js";
import { advanceCheckpoint } from "../src/services/sync/sync-runs.repository.js";
import { signWebhookBody } from "../src/shared/upstream/webhook-signature.js";
import { createVerifier } from "../src/shared/auth/verify-jwt.js";
import { loadConfig } from "../src/shared/config.js";
import { ConfigSchema } from "../src/runtime/config.js";
import { createLogger } from "../src/shared/http/logger.js";
import { openJobQueue } from "../src/shared/jobs/queue.js";
import {
  autocannon,
  buildOnce,
  freePort,
  machine,
  median,
  memoryOf,
  option,
  productionNodeFlags,
  ROOT,
  serveChild,
  waitHealthy,
} from "./lib.js";
import {
  API_KEY,
  plainPaging,
  READY,
  storage,
  syncOnce,
  untilQuiet,
  type ChildJob,
  type ChildResult,
  type IncrementalRun,
} from "./sync-child.js";

const SECRET = "bench-webhook-secret";
const logger = createLogger("silent");
/** How production runs Node (package.json `start`, the image): see docs/operations.md. */
/** The sandbox and the syncing process run as production runs code: compiled, with its Node flags. */
const NODE_FLAGS = productionNodeFlags();

/** Resident memory of a process, MB (0 where /proc cannot be read). */
const rssMb = (pid: number | undefined): number => memoryOf(pid)?.rssMb ?? 0;

async function ingestion(
  kind: string,
  sandbox: string,
  integrationId: string,
  o: { rounds: number; duration: number; connections: number; rateLimit?: string },
) {
  const store = await storage(kind);
  let database = store.database;
  const env = {
    LOG_LEVEL: "silent",
    UPSTREAM_BASE_URL: sandbox,
    UPSTREAM_API_KEY: API_KEY,
    UPSTREAM_WEBHOOK_SECRET: SECRET,
    ...(o.rateLimit !== undefined ? { RATE_LIMIT_PER_MINUTE: o.rateLimit } : {}),
  };
  await recordIntegration(database.db, { id: integrationId, orgId: randomUUID(), tool: "greenhouse", category: "ATS", status: "ACTIVE" });
  // The receiving proxy is a process of its own, as production runs it (`hirebridge serve proxy`,
  // compiled, with production's Node flags), its job workers off: in the bench's process it would
  // share one event loop with the load generator, which then measures itself.
  await store.lend();
  const proxyPort = await freePort();
  const receiver = serveChild(["proxy"], { ...env, ...store.env, PROXY_PORT: String(proxyPort), WORKERS: "false" }, NODE_FLAGS, {
    compiled: true,
  });
  const base = `http://127.0.0.1:${proxyPort}`;
  await waitHealthy(`${base}/healthz`, receiver.child);
  const event = () => {
    const body = JSON.stringify({
      id: randomBytes(12).toString("base64url"),
      type: "data-changed",
      data: {
        integration_id: integrationId,
        integration_tool: "greenhouse",
        integration_category: "ATS",
        changed_models: [{ name: "ats_applications" }],
      },
    });
    return { body, headers: { "content-type": "application/json", "x-kombo-signature": signWebhookBody(body, SECRET) } };
  };
  const runs = { healthz: [] as number[], events: [] as number[], p50: [] as number[], p99: [] as number[], acknowledged: 0, refused: 0 };
  const healthz = (duration: number) => autocannon({ url: `${base}/healthz`, connections: o.connections, duration });
  const events = (duration: number) =>
    autocannon({
      url: `${base}/api/v1/webhooks/upstream/data-changed`,
      method: "POST",
      connections: o.connections,
      duration,
      requests: [{ setupRequest: (req: Record<string, unknown>) => ({ ...req, ...event(), method: "POST" }) }],
    });
  // Warm-up (JIT, connection pools): its events count as acknowledged and must be stored too.
  await healthz(1);
  const warm = await events(1);
  runs.acknowledged += warm["2xx"];
  runs.refused += warm.non2xx + warm.errors + warm.timeouts;
  for (let r = 0; r < o.rounds; r++) {
    const h = await healthz(o.duration);
    const w = await events(o.duration);
    runs.healthz.push(h.requests.average);
    runs.events.push(w.requests.average);
    runs.p50.push(w.latency.p50);
    runs.p99.push(w.latency.p99);
    runs.acknowledged += w["2xx"];
    runs.refused += w.non2xx + w.errors + w.timeouts;
  }
  await receiver.stop();
  database = await store.reopen();
  const count = async (where: string) =>
    Number((await database.query<{ n: string }>(`select count(*)::text as n from webhook_events ${where}`))[0]!.n);
  const stored = await count("");

  // The backlog: job workers start on the stored events. Checkpoints at now keep the syncs they
  // trigger small, so the drain measures the event work itself.
  for (const model of ["jobs", "applications"] as const) await advanceCheckpoint(database.db, integrationId, model, new Date());
  // The drain runs in this process (no load generator runs meanwhile), where it can watch the queue.
  const config = loadConfig(ConfigSchema, env);
  const queue = await openJobQueue(database, logger);
  const t0 = performance.now();
  const workers = await buildProxyWithSync({
    config,
    database,
    logger,
    verify: createVerifier({ issuer: "http://127.0.0.1:1/none" }),
    queue,
    workers: true,
  });
  let open = stored;
  while (open > 0 && performance.now() - t0 < 900_000) {
    await new Promise((r) => setTimeout(r, 50));
    open = await count("where status = 'queued'");
  }
  const drainSeconds = (performance.now() - t0) / 1000;
  const failed = await count("where status = 'failed'");
  await workers.close();
  await queue.stop();
  await store.dispose();
  return { ...runs, stored, drainSeconds, open, failed };
}

/**
 * Waits until the sandbox has released its memory: it starts to 2-2.5 s after its last request
 * (releaseMemoryWhenIdle: 2 s idle, checked every 0.5 s) a compacting collection that takes a few
 * hundred ms on a grown heap. So: past the last check, then until its CPU is quiet.
 */
const sandboxIdle = async (pid: number | undefined) => {
  await new Promise((r) => setTimeout(r, 2_600));
  await untilQuiet(pid);
};

let childScript: string | undefined;
/**
 * sync-child.ts as plain JavaScript (its types stripped here, once), importing the built dist/:
 * the syncing process then loads what production loads, neither tsx nor Node's own type stripper
 * (which alone adds ~17 MB of RSS).
 */
function syncChildScript(): string {
  if (!childScript) {
    childScript = join(mkdtempSync(join(tmpdir(), "hirebridge-bench-child-")), "sync-child.mjs");
    writeFileSync(childScript, stripTypeScriptTypes(readFileSync(join(ROOT, "bench/sync-child.ts"), "utf8")));
  }
  return childScript;
}

/** Runs syncChild in a child process, sampling the RSS of it + the sandbox (the whole stack) meanwhile. */
async function syncInChild(job: ChildJob): Promise<ChildResult & { stackMb: number }> {
  // The flags production runs Node with (package.json `start`, the image): a young generation of
  // at most 8 MB per semi-space instead of one sized from the host's memory.
  const child = spawn(process.execPath, [...NODE_FLAGS, syncChildScript(), JSON.stringify(job)], {
    cwd: ROOT,
    env: { ...process.env, NODE_NO_WARNINGS: "1", BENCH_RUNTIME: "dist", BENCH_ROOT: ROOT },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  let stack = 0;
  // From the child's READY line on: its loading is not the sync (a serving process has loaded long before).
  const timer = setInterval(() => {
    if (out.startsWith(READY)) stack = Math.max(stack, rssMb(child.pid) + rssMb(job.sandboxPid));
  }, 50);
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  clearInterval(timer);
  if (code !== 0) throw new Error(`the syncing process exited with ${code}`);
  const line = out.trim().split("\n").pop()!;
  return { ...(JSON.parse(line) as ChildResult), stackMb: stack };
}

export async function main(args: string[]): Promise<void> {
  const smoke = args.includes("--smoke");
  const applications = Number(option(args, "applications", smoke ? "2000" : "100000"));
  const changes = Number(option(args, "changes", smoke ? "100" : "1000"));
  const kinds = option(args, "storage", "pglite,postgres").split(",");
  const rounds = Number(option(args, "rounds", smoke ? "1" : "3"));
  const duration = Number(option(args, "duration", smoke ? "1" : "5"));
  const connections = Number(option(args, "connections", "20"));
  const rateLimit = args.includes("--rate-limit") ? option(args, "rate-limit", "0") : undefined;
  // `--only=sync` or `--only=ingestion`: one of the two parts (both by default).
  const only = option(args, "only", "");
  const port = await freePort();
  buildOnce();
  // A sandbox state of its own: a saved one (DATA_DIR) would keep another size and earlier runs' changes.
  const sandboxData = mkdtempSync(join(tmpdir(), "hirebridge-bench-sandbox-"));
  const sandbox = serveChild(
    ["sandbox"],
    {
      DATA_DIR: sandboxData,
      SANDBOX_PORT: String(port),
      SANDBOX_APPLICATIONS: String(applications),
      UPSTREAM_API_KEY: API_KEY,
      UPSTREAM_WEBHOOK_SECRET: SECRET,
      SANDBOX_WEBHOOK_URL: "http://127.0.0.1:9/none",
    },
    NODE_FLAGS,
    { compiled: true },
  );
  const problems: string[] = [];
  try {
    await waitHealthy(`http://127.0.0.1:${port}/healthz`, sandbox.child);
    const origin = `http://127.0.0.1:${port}`;
    const sandboxUrl = `${origin}/v1`;
    const listed = (await (await fetch(`${origin}/sandbox/integrations`)).json()) as { demo_integration_id: string };
    const integrationId = listed.demo_integration_id;

    console.log(`\nMachine: ${machine()}. Command: npm run bench -- sync ${args.join(" ")}\n`);
    if (only !== "ingestion") {
      console.log(`### Full sync of an integration with ${applications.toLocaleString("en")} applications (median of ${rounds})\n`);
      console.log(
        "| storage | plain HTTP paging s (baseline) | engine, no writes s | full sync s | ratio to plain paging | ratio to no-write pass | pages | records read | candidates written | syncing process RSS before → peak MB | peak RSS, stack MB |",
      );
      console.log("|---|---|---|---|---|---|---|---|---|---|---|");
      const incremental: string[] = [];
      for (const kind of kinds) {
        const plain: number[] = [];
        const dry: number[] = [];
        const full: Awaited<ReturnType<typeof syncInChild>>[] = [];
        for (let r = 0; r < rounds; r++) {
          // The last round also runs the incremental scenario on its database, `rounds` times.
          const job: ChildJob = {
            kind,
            sandbox: sandboxUrl,
            origin,
            integrationId,
            changes: r === rounds - 1 ? changes : 0,
            sandboxPid: sandbox.child.pid,
            incrementalRounds: rounds,
          };
          // The sync and its baselines each from the same sandbox: one that gave back what the runs
          // before left it (it does after 2-2.5 s without a request, src/runtime/release-memory.ts).
          // Without this the second storage's syncs met a sandbox still holding the first's (20-40 MB
          // more at the stack's peak), and each measure met the sandbox as the one before left it.
          await sandboxIdle(sandbox.child.pid);
          full.push(await syncInChild(job));
          await sandboxIdle(sandbox.child.pid);
          plain.push(await plainPaging(sandboxUrl, integrationId, full[r]!.requests));
          await sandboxIdle(sandbox.child.pid);
          const d = await syncOnce(kind, sandboxUrl, integrationId, false);
          await d.setup.close();
          dry.push(d.seconds);
        }
        const s = median(full.map((f) => f.seconds));
        const f = full.find((x) => x.seconds === s)!;
        const p = median(plain);
        const d = median(dry);
        console.log(
          `| ${kind} | ${p.toFixed(2)} | ${d.toFixed(2)} | ${s.toFixed(2)} | ${(s / p).toFixed(2)} | ${(s / d).toFixed(2)} | ${f.requests.length} | ${f.records} | ${f.written} | ${median(full.map((x) => x.idleRssMb)).toFixed(0)} → ${median(full.map((x) => x.peakRssMb)).toFixed(0)} | ${median(full.map((x) => x.stackMb)).toFixed(0)} |`,
        );

        const runs = full[full.length - 1]!.incremental;
        const at = (k: keyof IncrementalRun) => median(runs.map((x) => x[k]));
        incremental.push(
          `| ${kind} | ${at("moved")} | ${at("pages")} | ${at("records")} | ${at("baseline").toFixed(3)} | ${at("seconds").toFixed(3)} | ${median(runs.map((x) => x.seconds / x.baseline)).toFixed(2)} | ${at("added")} |`,
        );
      }

      console.log(
        `\n### Incremental sync after ${changes.toLocaleString("en")} applications moved into the candidate stage (median of ${rounds} runs, each after its own changes)\n`,
      );
      console.log(
        "| storage | applications changed | pages read | records read | plain HTTP paging s (baseline) | incremental sync s | ratio | candidates added |",
      );
      console.log("|---|---|---|---|---|---|---|---|");
      for (const line of incremental) console.log(line);
    }
    if (only !== "sync") {
      console.log(
        `\n### Webhook ingestion (${connections} connections, ${duration} s × ${rounds} rounds, medians) and the backlog's drain\n`,
      );
      console.log(
        "| storage | GET /healthz req/s (baseline) | events acknowledged/s | ratio | p50 ms | p99 ms | acknowledged | refused | stored | backlog drain s | events/s drained | failed |",
      );
      console.log("|---|---|---|---|---|---|---|---|---|---|---|---|");
      for (const kind of kinds) {
        const r = await ingestion(kind, sandboxUrl, integrationId, {
          rounds,
          duration,
          connections,
          ...(rateLimit !== undefined ? { rateLimit } : {}),
        });
        const h = median(r.healthz);
        const e = median(r.events);
        console.log(
          `| ${kind} | ${h.toFixed(0)} | ${e.toFixed(0)} | ${(e / h).toFixed(2)} | ${median(r.p50)} | ${median(r.p99)} | ${r.acknowledged} | ${r.refused} | ${r.stored} | ${r.drainSeconds.toFixed(2)} | ${(r.stored / r.drainSeconds).toFixed(0)} | ${r.failed} |`,
        );
        if (r.refused > 0) problems.push(`${kind}: ${r.refused} events refused`);
        if (r.stored < r.acknowledged) problems.push(`${kind}: ${r.acknowledged - r.stored} acknowledged events not stored`);
        if (r.open > 0 || r.failed > 0) problems.push(`${kind}: ${r.open} events left unprocessed, ${r.failed} failed`);
      }
    }
  } finally {
    await sandbox.stop();
    rmSync(sandboxData, { recursive: true, force: true });
    if (childScript) rmSync(dirname(childScript), { recursive: true, force: true });
  }
  if (problems.length) throw new Error(`sync bench failed: ${problems.join("; ")}`);
}
