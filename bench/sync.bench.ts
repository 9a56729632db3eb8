/**
 * `npm run bench -- sync [--applications 100000] [--storage pglite,postgres] [--rounds 3] [--duration 5] [--connections 20]`
 *
 * 1. Webhook ingestion: the proxy app (job workers off) acknowledging signed data-changed events,
 *    each stored durably (one insert + one queued job, one transaction) before its 200; baseline:
 *    GET /healthz of the same server in the same run.
 * 2. A full sync of an integration holding `--applications` applications (the sandbox, in a child
 *    process): jobs, then the applications in each job's candidate stage, written as positions and
 *    candidates. Baseline: the same engine paging the same data with a store that writes nothing,
 *    i.e. the time merely to page through it upstream. Reports records/s and peak memory.
 * Storage is a temp PGlite directory on disk, or a fresh schema of BENCH_DATABASE_URL (default the
 * local `test` database), dropped after. Everything binds to 127.0.0.1 and stops by itself.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { dropSchemas } from "../src/shared/db/pg-schemas.js";
import type { Job } from "../src/contracts/upstream/index.js";
import { buildProxyWithSync } from "../src/runtime/wiring.js";
import { recordIntegration } from "../src/services/proxy/integrations/integrations.repository.js";
import { createUpstreamClient } from "../src/shared/upstream/upstream-client.js";
import { signWebhookBody } from "../src/services/sync/webhooks/verify-signature.js";
import { createAtsReader, type AtsReader } from "../src/services/sync/ats-reader.js";
import { openJobQueue } from "../src/shared/jobs/queue.js";
import { createRecruitingStore, type RecruitingStore } from "../src/services/sync/recruiting-store.js";
import { createSyncEngine } from "../src/services/sync/sync-engine.js";
import { createVerifier } from "../src/shared/auth/verify-jwt.js";
import { ConfigSchema, loadConfig } from "../src/shared/config.js";
import { openDatabase, type Database } from "../src/shared/db/database.js";
import { migrate } from "../src/shared/db/migrate.js";
import { createLogger } from "../src/shared/http/logger.js";
import { autocannon, freePort, machine, median, option, serveChild, waitHealthy } from "./lib.js";

const API_KEY = "bench-api-key";
const SECRET = "bench-webhook-secret";
const DB_URL = process.env["BENCH_DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";
const logger = createLogger("silent");

async function storage(kind: string): Promise<{ database: Database; dispose(): Promise<void> }> {
  if (kind === "pglite") {
    const dir = mkdtempSync(join(tmpdir(), "hirebridge-bench-"));
    const database = await openDatabase({ dataDir: dir });
    await migrate(database);
    return {
      database,
      dispose: async () => {
        await database.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const schema = `bench_${randomBytes(4).toString("hex")}`;
  const database = await openDatabase({ url: DB_URL, schema, poolSize: 10 });
  await migrate(database);
  return {
    database,
    dispose: async () => {
      await database.close();
      await dropSchemas(DB_URL, schema);
    },
  };
}

async function ingestion(kind: string, sandbox: string, rounds: number, duration: number, connections: number) {
  const { database, dispose } = await storage(kind);
  const config = loadConfig(ConfigSchema, { LOG_LEVEL: "silent", UPSTREAM_BASE_URL: sandbox, UPSTREAM_API_KEY: API_KEY, UPSTREAM_WEBHOOK_SECRET: SECRET, WORKERS: "false" });
  const integrationId = "greenhouse:benchIntegration0000000001";
  await recordIntegration(database.db, { id: integrationId, orgId: randomUUID(), tool: "greenhouse", category: "ATS", status: "ACTIVE" });
  const queue = await openJobQueue(database, logger);
  const app = await buildProxyWithSync({ config, database, logger, verify: createVerifier({ issuer: "http://127.0.0.1:1/none" }), queue, workers: false });
  const port = await freePort();
  await app.listen({ host: "127.0.0.1", port });
  const base = `http://127.0.0.1:${port}`;
  const event = () => {
    const body = JSON.stringify({
      id: randomBytes(12).toString("base64url"),
      type: "data-changed",
      data: { integration_id: integrationId, integration_tool: "greenhouse", integration_category: "ATS", changed_models: [{ name: "ats_applications" }] },
    });
    return { body, headers: { "content-type": "application/json", "x-kombo-signature": signWebhookBody(body, SECRET) } };
  };
  const runs: { healthz: number[]; events: number[]; p50: number[]; p99: number[]; errors: number } = { healthz: [], events: [], p50: [], p99: [], errors: 0 };
  for (let r = 0; r < rounds; r++) {
    const h = await autocannon({ url: `${base}/healthz`, connections, duration });
    const w = await autocannon({
      url: `${base}/api/v1/webhooks/upstream/data-changed`,
      method: "POST",
      connections,
      duration,
      requests: [{ setupRequest: (req: Record<string, unknown>) => ({ ...req, ...event(), method: "POST" }) }],
    });
    runs.healthz.push(h.requests.average);
    runs.events.push(w.requests.average);
    runs.p50.push(w.latency.p50);
    runs.p99.push(w.latency.p99);
    runs.errors += w.non2xx + w.errors + w.timeouts;
  }
  const stored = (await database.query<{ n: string }>("select count(*)::text as n from webhook_events"))[0]!.n;
  await app.close();
  await queue.stop();
  await dispose();
  return { kind, ...runs, stored: Number(stored) };
}

/** Counts what the engine reads, and samples memory while it runs. */
function instrument(reader: AtsReader) {
  let records = 0;
  let pages = 0;
  const counted: AtsReader = {
    ...reader,
    page: async (...args) => {
      const page = await reader.page(...(args as Parameters<AtsReader["page"]>));
      records += page.results.length;
      pages++;
      return page as never;
    },
  };
  return { reader: counted, counts: () => ({ records, pages }) };
}

async function fullSync(kind: string, sandbox: string, integrationId: string, writes: boolean) {
  const { database, dispose } = await storage(kind);
  const orgId = randomUUID();
  await recordIntegration(database.db, { id: integrationId, orgId, tool: "greenhouse", category: "ATS", status: "ACTIVE" });
  const queue = await openJobQueue(database, logger);
  const upstream = createUpstreamClient({ baseUrl: sandbox, apiKey: API_KEY, timeoutMs: 60_000, retry: { retries: 3, baseDelayMs: 50, maxTotalWaitMs: 5000 }, logger });
  const { reader, counts } = instrument(createAtsReader(upstream, logger));
  const real = createRecruitingStore({ interviewBaseUrl: "http://127.0.0.1:8001/interview" });
  // The baseline pages the same data and maps it, and writes nothing but what the applications
  // listing needs to know (the linked positions), which it keeps in memory.
  const linked: Awaited<ReturnType<RecruitingStore["linkedPositions"]>> = [];
  const noWrites: RecruitingStore = {
    ...real,
    upsertPositions: async (_q, _org, _int, jobs) => {
      for (const j of jobs) linked.push({ id: randomUUID(), upstreamJobIdId: j.upstream_job_id_id, candidateStage: j.candidate_stage, acceptedLanguages: [] });
      return { created: jobs.length, updated: 0 };
    },
    linkedPositions: async () => linked,
    upsertCandidates: async (_q, _o, _p, apps) => ({ created: apps.length, updated: 0, skipped: 0 }),
  };
  const engine = createSyncEngine({
    db: database.db,
    queue,
    reader,
    store: writes ? real : noWrites,
    logger,
    defaultCandidateStage: "AI Interview",
    checkpointMarginSeconds: 300,
  });
  global.gc?.();
  const before = process.memoryUsage();
  let peakRss = before.rss;
  let peakHeap = before.heapUsed;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed);
  }, 20);
  const t0 = performance.now();
  await engine.start({ integrationId, orgId, models: ["jobs", "applications"], type: "FULL", trigger: "bench" });
  await engine.run({ integrationId, model: "jobs" }, { last: true });
  await engine.run({ integrationId, model: "applications" }, { last: true });
  const seconds = (performance.now() - t0) / 1000;
  clearInterval(sampler);
  const runs = await database.query<{ model: string; state: string; created_count: number; skipped_count: number; last_error: string | null }>(
    "select model, state, created_count, skipped_count, last_error from sync_runs",
  );
  const failed = runs.find((r) => r.state !== "succeeded");
  if (failed) throw new Error(`sync ${failed.model} ${failed.state}: ${failed.last_error}`);
  const written = writes
    ? Number((await database.query<{ n: string }>("select count(*)::text as n from candidates"))[0]!.n)
    : runs.find((r) => r.model === "applications")!.created_count;
  await queue.stop();
  await upstream.close();
  await dispose();
  return { seconds, ...counts(), written, peakRssMb: peakRss / 2 ** 20, peakHeapDeltaMb: (peakHeap - before.heapUsed) / 2 ** 20 };
}

export async function main(args: string[]): Promise<void> {
  const applications = Number(option(args, "applications", "100000"));
  const kinds = option(args, "storage", "pglite,postgres").split(",");
  const rounds = Number(option(args, "rounds", "3"));
  const duration = Number(option(args, "duration", "5"));
  const connections = Number(option(args, "connections", "20"));
  const port = await freePort();
  const sandbox = serveChild(["sandbox"], {
    SANDBOX_PORT: String(port),
    SANDBOX_APPLICATIONS: String(applications),
    UPSTREAM_API_KEY: API_KEY,
    UPSTREAM_WEBHOOK_SECRET: SECRET,
    SANDBOX_WEBHOOK_URL: "http://127.0.0.1:9/none",
  });
  try {
    await waitHealthy(`http://127.0.0.1:${port}/healthz`, sandbox.child);
    const sandboxUrl = `http://127.0.0.1:${port}/v1`;
    const integrations = (await (await fetch(`http://127.0.0.1:${port}/sandbox/integrations`)).json()) as { integrations?: { id: string }[] } | { id: string }[];
    const list = Array.isArray(integrations) ? integrations : (integrations.integrations ?? []);
    const integrationId = list[0]!.id;
    const jobs = (await (await fetch(`${sandboxUrl}/ats/jobs?page_size=1`, { headers: { authorization: `Bearer ${API_KEY}`, "x-integration-id": integrationId } })).json()) as { data: { results: Job[] } };
    if (!jobs.data.results.length) throw new Error("the sandbox has no jobs");

    console.log(`\nMachine: ${machine()}. Command: npm run bench -- sync ${args.join(" ")}\n`);
    console.log(`### Webhook ingestion (${connections} connections, ${duration} s × ${rounds} rounds, medians)\n`);
    console.log("| storage | GET /healthz req/s (baseline) | events acknowledged/s | ratio | p50 ms | p99 ms | errors | events stored |");
    console.log("|---|---|---|---|---|---|---|---|");
    for (const kind of kinds) {
      const r = await ingestion(kind, sandboxUrl, rounds, duration, connections);
      const h = median(r.healthz);
      const e = median(r.events);
      console.log(`| ${kind} | ${h.toFixed(0)} | ${e.toFixed(0)} | ${(e / h).toFixed(2)} | ${median(r.p50)} | ${median(r.p99)} | ${r.errors} | ${r.stored} |`);
    }

    console.log(`\n### Full sync of an integration with ${applications.toLocaleString("en")} applications (median of ${rounds})\n`);
    console.log("| storage | paging only, s (baseline) | full sync, s | ratio | records read | records/s | candidates written | peak RSS MB | peak heap growth MB |");
    console.log("|---|---|---|---|---|---|---|---|---|");
    for (const kind of kinds) {
      const base: number[] = [];
      const full: Awaited<ReturnType<typeof fullSync>>[] = [];
      for (let r = 0; r < rounds; r++) {
        base.push((await fullSync(kind, sandboxUrl, integrationId, false)).seconds);
        full.push(await fullSync(kind, sandboxUrl, integrationId, true));
      }
      const s = median(full.map((f) => f.seconds));
      const f = full.find((x) => x.seconds === s)!;
      const b = median(base);
      console.log(
        `| ${kind} | ${b.toFixed(2)} | ${s.toFixed(2)} | ${(s / b).toFixed(2)} | ${f.records} | ${(f.records / s).toFixed(0)} | ${f.written} | ${median(full.map((x) => x.peakRssMb)).toFixed(0)} | ${median(full.map((x) => x.peakHeapDeltaMb)).toFixed(0)} |`,
      );
    }
  } finally {
    await sandbox.stop();
  }
}
