/**
 * The syncing process of `npm run bench -- sync` (bench/sync.bench.ts spawns it, with the flags
 * production runs Node with): a full sync with the real store, then, when asked, the incremental
 * scenario on the same database; prints its figures as one JSON line. It imports only what a
 * sync needs, so its RSS is the sync's and not the bench's (autocannon, the proxy's wiring).
 * `syncOnce` also serves the bench's no-write pass.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Application } from "../src/contracts/upstream/index.js";
import type { AtsReader } from "../src/services/sync/ats-reader.js";
import type { Database, Db, Queryable } from "../src/shared/db/database.js";
import type { LinkedPosition, RecruitingStore } from "../src/shared/ports/recruiting-sync.js";

/**
 * Where the product's modules come from: the compiled JavaScript (dist/) when the bench runs this
 * file as production runs code (BENCH_RUNTIME=dist: the bench hands Node this file with its types
 * stripped, as plain JavaScript, from BENCH_ROOT), so the syncing process's memory is what ships;
 * the sources through tsx otherwise (the profile script). Types come from the sources either way.
 */
const RUNTIME = process.env["BENCH_RUNTIME"] === "dist" ? "dist" : "src";
const ROOT_URL = process.env["BENCH_ROOT"] ? pathToFileURL(`${process.env["BENCH_ROOT"]}/`) : new URL("../", import.meta.url);
const load = <M>(path: string): Promise<M> => import(new URL(`${RUNTIME}/${path}`, ROOT_URL).href) as Promise<M>;
const { findIntegration, recordIntegration } = await load<typeof import("../src/services/proxy/integrations/integrations.repository.js")>(
  "services/proxy/integrations/integrations.repository.js",
);
const { createSyncStore } = await load<typeof import("../src/services/recruiting/upstream/index.js")>(
  "services/recruiting/upstream/index.js",
);
const { createAtsReader } = await load<typeof import("../src/services/sync/ats-reader.js")>("services/sync/ats-reader.js");
const { createSyncEngine } = await load<typeof import("../src/services/sync/sync-engine.js")>("services/sync/sync-engine.js");
const { openDatabase } = await load<typeof import("../src/shared/db/database.js")>("shared/db/database.js");
const { migrate } = await load<typeof import("../src/shared/db/migrate.js")>("shared/db/migrate.js");
const { dropSchemas } = await load<typeof import("../src/shared/db/pg-schemas.js")>("shared/db/pg-schemas.js");
const { createLogger } = await load<typeof import("../src/shared/http/logger.js")>("shared/http/logger.js");
const { openJobQueue } = await load<typeof import("../src/shared/jobs/queue.js")>("shared/jobs/queue.js");
const { releaseUnusedMemory } = await load<typeof import("../src/runtime/release-memory.js")>("runtime/release-memory.js");
const { createUpstreamClient } = await load<typeof import("../src/shared/upstream/upstream-client.js")>(
  "shared/upstream/upstream-client.js",
);

export const API_KEY = "bench-api-key";
const DB_URL = process.env["BENCH_DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";
const logger = createLogger("silent");

/**
 * A fresh, migrated database: PGlite in a temp directory, or a new schema of BENCH_DATABASE_URL (dropped by dispose).
 * `env` points a served process (`hirebridge serve`) at the same database. PGlite admits one
 * process at a time: `lend` closes the bench's handle while a served process holds the database,
 * `reopen` takes it back (on Postgres both keep the one pool).
 */
export type Storage = {
  database: Database;
  env: Record<string, string>;
  lend(): Promise<void>;
  reopen(): Promise<Database>;
  dispose(): Promise<void>;
};

export async function storage(kind: string): Promise<Storage> {
  if (kind === "pglite") {
    const dir = mkdtempSync(join(tmpdir(), "hirebridge-bench-"));
    // Where `hirebridge serve` keeps PGlite under DATA_DIR, compiled as PGLITE_WASM_COMPILER says
    // (the bench passes its environment on: `PGLITE_WASM_COMPILER=baseline npm run bench -- sync`).
    const pgliteCompiler = process.env["PGLITE_WASM_COMPILER"] === "baseline" ? "baseline" : "optimizing";
    const open = async () => {
      const database = await openDatabase({ dataDir: join(dir, "pglite"), pgliteCompiler });
      await migrate(database);
      return database;
    };
    let current: Database | undefined = await open();
    return {
      database: current,
      env: { DATA_DIR: dir },
      async lend() {
        await current?.close();
        current = undefined;
      },
      reopen: async () => (current ??= await open()),
      dispose: async () => {
        await current?.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const schema = `bench_${randomBytes(4).toString("hex")}`;
  const database = await openDatabase({ url: DB_URL, schema, poolSize: 10 });
  await migrate(database);
  return {
    database,
    env: { DATABASE_URL: DB_URL, DATABASE_SCHEMA: schema },
    lend: async () => {},
    reopen: async () => database,
    dispose: async () => {
      await database.close();
      await dropSchemas(DB_URL, schema);
    },
  };
}

export type PageRequest = { path: string; query: Record<string, string> };

/** The sync's baseline: plain sequential HTTP paging (fetch + JSON.parse) of exactly `requests`, seconds. */
export async function plainPaging(sandbox: string, integrationId: string, requests: PageRequest[]): Promise<number> {
  const headers = { authorization: `Bearer ${API_KEY}`, "x-integration-id": integrationId };
  const t0 = performance.now();
  for (const r of requests) {
    const res = await fetch(`${sandbox}${r.path}?${new URLSearchParams(r.query)}`, { headers });
    JSON.parse(await res.text());
    if (res.status !== 200) throw new Error(`plain paging: ${r.path} answered ${res.status}`);
  }
  return (performance.now() - t0) / 1000;
}

/** Records every page the engine reads, to page through the same ones again with plain HTTP. */
export function recording(reader: AtsReader) {
  const requests: PageRequest[] = [];
  let records = 0;
  const recorded: AtsReader = {
    ...reader,
    page: async (integrationId, path, query, requestId) => {
      requests.push({ path, query });
      const page = await reader.page(integrationId, path, query, requestId);
      records += page.results.length;
      return page as never;
    },
  };
  return { reader: recorded, requests, records: () => records };
}

export type SyncSetup = { database: Database; dispose(): Promise<void>; orgId: string; close(): Promise<void> };

/**
 * One full sync with a fresh database: `write` the real store, else a store that keeps the linked
 * positions in memory and writes nothing. Answers its figures, its database (close it) and an
 * engine factory for an incremental run after it.
 */
export async function syncOnce(kind: string, sandbox: string, integrationId: string, write: boolean) {
  const { database, dispose } = await storage(kind);
  const orgId = randomUUID();
  await recordIntegration(database.db, { id: integrationId, orgId, tool: "greenhouse", category: "ATS", status: "ACTIVE" });
  const queue = await openJobQueue(database, logger);
  const upstream = createUpstreamClient({
    baseUrl: sandbox,
    apiKey: API_KEY,
    timeoutMs: 60_000,
    retry: { retries: 3, baseDelayMs: 50, maxTotalWaitMs: 5000 },
    logger,
  });
  const real = createSyncStore({ interviewBaseUrl: "http://127.0.0.1:8001/interview" });
  const linked: LinkedPosition[] = [];
  const noWrites: RecruitingStore<Queryable, Db> = {
    ...real,
    // Each page recorded as the sync records it (one statement), with no candidates written.
    upsertCandidatesRecorded: (db, orgId, _apps, record) => real.upsertCandidatesRecorded(db, orgId, [], record),
    upsertPositions: async (_q, _org, _int, jobs) => {
      for (const j of jobs)
        if (j.candidate_stage)
          linked.push({
            id: randomUUID(),
            upstreamJobIdId: j.upstream_job_id_id,
            candidateStage: j.candidate_stage,
            acceptedLanguages: [],
          });
      linked.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      return { created: jobs.length, updated: 0 };
    },
    linkedPositions: async (_q, _o, _i, page) => linked.filter((p) => !page.after || p.id > page.after).slice(0, page.limit),
    positionsOfJobs: async (_q, _o, _i, jobIds) => linked.filter((p) => jobIds.includes(p.upstreamJobIdId)),
    upsertCandidates: async (_q, _o, apps) => ({ created: apps.length, updated: 0, skipped: 0 }),
  };
  const engineFor = (reader: AtsReader, checkpointMarginSeconds = 300) =>
    createSyncEngine({
      db: database.db,
      queue,
      reader,
      store: write ? real : noWrites,
      integrations: {
        find: (id) => findIntegration(database.db, id),
        belongsTo: async (id, org) => (await findIntegration(database.db, id))?.orgId === org,
      },
      logger,
      defaultCandidateStage: "AI Interview",
      checkpointMarginSeconds,
    });
  const base = createAtsReader(upstream, logger);
  const rec = recording(base);
  const t0 = performance.now();
  const engine = engineFor(rec.reader);
  await engine.start({ integrationId, orgId, models: ["jobs", "applications"], type: "FULL", trigger: "bench" });
  await engine.run({ integrationId, model: "jobs" }, { last: true });
  await engine.run({ integrationId, model: "applications" }, { last: true });
  const seconds = (performance.now() - t0) / 1000;
  await assertSucceeded(database);
  const written = write
    ? Number((await database.query<{ n: string }>("select count(*)::text as n from candidates"))[0]!.n)
    : (await database.query<{ n: number }>("select created_count as n from sync_runs where model = 'applications'"))[0]!.n;
  const setup: SyncSetup = {
    database,
    dispose,
    orgId,
    close: async () => {
      await queue.stop();
      await upstream.close();
      await dispose();
    },
  };
  return { seconds, requests: rec.requests, records: rec.records(), written, setup, engineFor, base };
}

async function assertSucceeded(database: Database): Promise<void> {
  const runs = await database.query<{ model: string; state: string; last_error: string | null }>(
    "select model, state, last_error from sync_runs",
  );
  const failed = runs.find((r) => r.state !== "succeeded");
  if (failed) throw new Error(`sync ${failed.model} ${failed.state}: ${failed.last_error}`);
}

/**
 * CPU ticks (utime + stime) of a process so far (Linux /proc); null when it cannot be read. Not
 * lib.ts's cpuSeconds: this process loads nothing of the bench's own (autocannon), so its memory
 * is the sync's.
 */
function cpuTicks(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return null;
  }
}

/**
 * Waits until process `pid` has used no CPU for 100 ms (at most 5 s). After a burst of changes the
 * sandbox writes its state file (50 ms after the last one, see sandbox/store/persistence.ts): the
 * stand-in upstream's own bookkeeping, which would otherwise run during the timed run and not
 * during its baseline.
 */
export async function untilQuiet(pid: number | undefined): Promise<void> {
  if (!pid) return;
  const end = performance.now() + 5_000;
  let last = cpuTicks(pid);
  let quietSince = performance.now();
  while (last !== null && performance.now() < end) {
    await new Promise((r) => setTimeout(r, 20));
    const now = cpuTicks(pid);
    if (now !== last) quietSince = performance.now();
    else if (performance.now() - quietSince >= 100) return;
    last = now;
  }
}

/** An application moved by `changeApplications`, and the stage it was in. */
export type MovedApplication = { id: string; stageId: string };

/**
 * Moves `count` applications not in "AI Interview" into it upstream (the sandbox's admin surface);
 * answers how many, and adds each with its former stage to `moved` (for `restoreApplications`).
 */
export async function changeApplications(
  origin: string,
  integrationId: string,
  count: number,
  moved: MovedApplication[] = [],
): Promise<number> {
  const headers = { authorization: `Bearer ${API_KEY}`, "x-integration-id": integrationId };
  let done = 0;
  let cursor: string | null = null;
  while (done < count) {
    const url: string = `${origin}/v1/ats/applications?page_size=250${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const page = ((await (await fetch(url, { headers })).json()) as { data: { results: Application[]; next: string | null } }).data;
    const candidates = page.results.filter(
      (a) => a.current_stage?.name !== "AI Interview" && a.current_stage_id && a.candidate?.email_addresses?.length && !a.remote_deleted_at,
    );
    for (let i = 0; i < candidates.length && done < count; i += 8) {
      const batch = candidates.slice(i, i + Math.min(8, count - done));
      const ok = await putStages(
        origin,
        integrationId,
        batch.map((a) => ({ id: a.id, body: { stage_name: "AI Interview" } })),
      );
      for (const [k, a] of batch.entries()) if (ok[k]) moved.push({ id: a.id, stageId: a.current_stage_id! });
      done += ok.filter(Boolean).length;
    }
    if (!page.next) break;
    cursor = page.next;
  }
  if (done < count) throw new Error(`only ${done} applications could be moved`);
  return done;
}

/** Puts the applications `changeApplications` moved back in their former stages, so that the next storage's full sync reads what the first one read. */
export async function restoreApplications(origin: string, integrationId: string, moved: MovedApplication[]): Promise<void> {
  for (let i = 0; i < moved.length; i += 8) {
    const batch = moved.slice(i, i + 8);
    const ok = await putStages(
      origin,
      integrationId,
      batch.map((a) => ({ id: a.id, body: { stage_id: a.stageId } })),
    );
    if (ok.some((x) => !x)) throw new Error("an application could not be moved back to its stage");
  }
}

/** PUTs each application's stage at once; answers which succeeded. */
function putStages(origin: string, integrationId: string, moves: { id: string; body: Record<string, string> }[]): Promise<boolean[]> {
  return Promise.all(
    moves.map((m) =>
      fetch(`${origin}/sandbox/integrations/${encodeURIComponent(integrationId)}/applications/${m.id}/stage`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(m.body),
      }).then(async (r) => {
        await r.arrayBuffer();
        return r.ok;
      }),
    ),
  );
}

/** VmHWM: the peak resident memory of this process so far, MB. */
function ownPeakMb(): number {
  const kb = /VmHWM:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))?.[1];
  return kb ? Number(kb) / 1024 : 0;
}

/** The line the syncing process prints once loaded, before the sync: the stack's peak counts from it. */
export const READY = "ready";

export type ChildJob = {
  kind: string;
  sandbox: string;
  origin: string;
  integrationId: string;
  changes: number;
  /** The sandbox's process: its RSS counts in the stack's peak, and the incremental run waits for it to go quiet after the changes. */
  sandboxPid?: number | undefined;
  /** How many times the incremental scenario runs, one after the other on the same database (its medians). */
  incrementalRounds?: number;
};

/** One incremental run: the applications moved, what the run read and wrote, and its baseline (plain paging of the same pages). */
export type IncrementalRun = { moved: number; seconds: number; baseline: number; pages: number; records: number; added: number };
export type ChildResult = {
  seconds: number;
  requests: PageRequest[];
  records: number;
  written: number;
  /** RSS of the syncing process before the sync (its code and, on PGlite, the embedded database), and its peak. */
  idleRssMb: number;
  peakRssMb: number;
  incremental: IncrementalRun[];
};

/**
 * The syncing process: a full sync with the real store in a process of its own (so its peak RSS
 * is the sync's, not the bench's), then, when asked, the incremental scenario on the same database.
 */
export async function syncChild(job: ChildJob): Promise<ChildResult> {
  // What a serving process does once it listens (runtime/release-memory.ts): the syncing process
  // starts from the memory a production process syncs with.
  releaseUnusedMemory();
  // The peaks count from here: VmHWM is reset (Linux: 5 > clear_refs), and the bench samples the
  // stack once this line is out.
  writeFileSync("/proc/self/clear_refs", "5");
  await new Promise<void>((resolve) => process.stdout.write(`${READY}\n`, () => resolve()));
  const idleRssMb = process.memoryUsage().rss / 2 ** 20;
  const f = await syncOnce(job.kind, job.sandbox, job.integrationId, true);
  const peakRssMb = ownPeakMb();
  const incremental: IncrementalRun[] = [];
  const movedAll: MovedApplication[] = [];
  for (let round = 0; job.changes > 0 && round < (job.incrementalRounds ?? 1); round++) {
    const moved = await changeApplications(job.origin, job.integrationId, job.changes, movedAll);
    await untilQuiet(job.sandboxPid);
    // The sandbox sorts its change log on the first `updated_after` query after changes (~0.3 s at
    // 100,000 records): one such query first, so the run pays what its baseline (after it) pays.
    await f.base.page(job.integrationId, "/ats/applications", { page_size: "1", updated_after: new Date().toISOString() });
    const rec = recording(f.base);
    // No checkpoint margin: each run reads the changes made since the run before it, not those of
    // the last 300 s as well (the sandbox and the engine share this machine's clock).
    const engine = f.engineFor(rec.reader, 0);
    const count = async () => Number((await f.setup.database.query<{ n: string }>("select count(*)::text as n from candidates"))[0]!.n);
    const before = await count();
    const t0 = performance.now();
    await engine.start({
      integrationId: job.integrationId,
      orgId: f.setup.orgId,
      models: ["applications"],
      type: "DELTA",
      trigger: "bench",
    });
    await engine.run({ integrationId: job.integrationId, model: "applications" }, { last: true });
    const seconds = (performance.now() - t0) / 1000;
    await assertSucceeded(f.setup.database);
    const added = (await count()) - before;
    if (rec.records() < moved || added !== moved)
      throw new Error(`incremental sync read ${rec.records()} and added ${added} of ${moved} moved`);
    const baseline = await plainPaging(job.sandbox, job.integrationId, rec.requests);
    incremental.push({ moved, seconds, baseline, pages: rec.requests.length, records: rec.records(), added });
  }
  // The upstream as the scenario found it: the next storage's full sync reads the same records.
  await restoreApplications(job.origin, job.integrationId, movedAll);
  await untilQuiet(job.sandboxPid);
  await f.setup.close();
  return { seconds: f.seconds, requests: f.requests, records: f.records, written: f.written, idleRssMb, peakRssMb, incremental };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = JSON.stringify(await syncChild(JSON.parse(process.argv[2]!) as ChildJob));
  // Exit only once the pipe has taken the whole line.
  await new Promise<void>((resolve) => process.stdout.write(`${result}\n`, () => resolve()));
  process.exit(0);
}
