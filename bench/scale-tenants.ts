/**
 * `npm run bench -- scale --part tenants [--smoke] [--integrations 1000] [--applications 200]
 * [--noisy-applications 100000] [--noisy-events 10000] [--instances 1,2]` (issue 43)
 *
 * Many organisations on one deployment, in the production shape: `hirebridge serve` processes on
 * one Postgres (a fresh schema of BENCH_DATABASE_URL, dropped after) and one Redis; one process
 * runs the token service and the sandbox, which delivers its webhooks to the first proxy; one or
 * two `serve proxy` processes run the job workers. For each setting of JOBS_FAIR (false, the old
 * first come first served, then true) and each number of instances:
 *
 * 1. `--integrations` organisations connect one ATS integration each (`--applications` each): the
 *    sandbox's integration-created webhooks start their first syncs; the wave is timed.
 * 2. The weekly full sync of all of them is queued at once (SYNC_WEEKLY_SPREAD_SECONDS=0: the worst
 *    case the spread avoids): wall time, records/s, the proxies' peak RSS, the schema's size.
 * 3. While it runs, a noisy organisation connects an integration of `--noisy-applications` and
 *    sends `--noisy-events` signed data-changed webhooks, and a quiet organisation connects: the
 *    quiet one's first sync, from its connect to its start and to its end (target: done in 30 s).
 *
 * The quiet organisation's write-back p99 is not measured by this bench yet (docs/capacity.md).
 */
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { openDatabase } from "../src/shared/db/database.js";
import { jobQueueSchema, dropSchemas } from "../src/shared/db/pg-schemas.js";
import { createLogger } from "../src/shared/http/logger.js";
import { openJobQueue, QUEUES } from "../src/shared/jobs/queue.js";
import { signWebhookBody } from "../src/shared/upstream/webhook-signature.js";
import { freePort, memoryOf, option, serveChild, sharedStackEnv, waitHealthy } from "./lib.js";

type Sizes = { integrations: number; applications: number; noisyApplications: number; noisyEvents: number };
export type TenantsRow = {
  fair: boolean;
  instances: number;
  connectWaveS: number;
  weeklyS: number;
  weeklyRecords: number;
  weeklyPages: number;
  quietStartS: number;
  quietDoneS: number;
  peakRssMb: number;
  postgresMb: number;
};

const SECRET = "bench-webhook-secret";
const FINAL = "('succeeded', 'failed', 'cancelled')";

/** Runs `work` over `items`, `width` at a time. */
async function inParallel<T>(items: T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

/** Polls `probe` every 250 ms until it answers true; throws after `timeoutMs`. */
async function until(what: string, probe: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  process.stderr.write(`scale tenants: waiting for ${what}\n`);
  while (!(await probe())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}

/** Creates an integration of `orgId` in the sandbox (its integration-created webhook goes to the proxy). */
async function connect(sandbox: string, orgId: string, applications: number): Promise<string> {
  const res = await fetch(`${sandbox}/sandbox/integrations`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ org_id: orgId, applications, end_user: { organization_name: `Org ${orgId.slice(0, 8)}`, origin_id: orgId } }),
  });
  if (res.status !== 201) throw new Error(`sandbox answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

/** One signed data-changed event for `integrationId`, posted to the proxy's receiver. */
async function dataChanged(proxy: string, integrationId: string): Promise<void> {
  const body = JSON.stringify({
    id: randomUUID(),
    type: "data-changed",
    data: {
      integration_id: integrationId,
      integration_tool: "greenhouse",
      integration_category: "ATS",
      changed_models: [{ name: "ats_applications" }],
    },
  });
  const signature = signWebhookBody(body, SECRET);
  const res = await fetch(`${proxy}/api/v1/webhooks/upstream/data-changed`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-upstream-signature": signature },
    body,
  });
  if (res.status !== 200) throw new Error(`receiver answered ${res.status}`);
}

/** Queues the weekly plan job as the cron does, through a queue of the bench's own (no workers). */
async function queueWeeklyPlan(url: string, schema: string): Promise<void> {
  const database = await openDatabase({ url, schema, poolSize: 2 });
  const queue = await openJobQueue(database, createLogger("silent"));
  try {
    await queue.send(QUEUES.weeklySync, {});
  } finally {
    await queue.stop();
    await database.close();
  }
}

async function scenario(fair: boolean, instances: number, sizes: Sizes): Promise<TenantsRow> {
  const databaseUrl = process.env["BENCH_DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";
  const schema = `bench_tenants_${randomBytes(4).toString("hex")}`;
  const dataDir = mkdtempSync(join(tmpdir(), "hirebridge-bench-tenants-"));
  const [authPort, sandboxPort, ...proxyPorts] = await Promise.all(Array.from({ length: 2 + instances }, () => freePort()));
  const env = {
    ...sharedStackEnv({ databaseUrl, schema, dataDir, authPort: authPort!, sandboxPort: sandboxPort! }),
    UPSTREAM_WEBHOOK_SECRET: SECRET,
    SANDBOX_WEBHOOK_URL: `http://127.0.0.1:${proxyPorts[0]}/api/v1/webhooks/upstream`,
    JOBS_FAIR: String(fair),
    SYNC_WEEKLY_SPREAD_SECONDS: "0",
  };

  const core = serveChild(["token", "sandbox"], env);
  const proxies = proxyPorts.map((port) => serveChild(["proxy"], { ...env, PROXY_PORT: String(port) }));
  const sandbox = `http://127.0.0.1:${sandboxPort}`;
  const proxy = `http://127.0.0.1:${proxyPorts[0]}`;
  const db = new pg.Client({ connectionString: databaseUrl, options: `-c search_path=${schema}` });
  const peak = { rss: 0 };
  const sampler = setInterval(() => {
    for (const p of proxies) peak.rss = Math.max(peak.rss, memoryOf(p.child.pid)?.rssMb ?? 0);
  }, 500);
  try {
    await waitHealthy(`http://127.0.0.1:${authPort}/healthz`, core.child);
    await waitHealthy(`${sandbox}/healthz`, core.child);
    await Promise.all(proxies.map((p, k) => waitHealthy(`http://127.0.0.1:${proxyPorts[k]}/healthz`, p.child)));
    await db.connect();
    const count = async (sql: string, params: unknown[] = []) => Number((await db.query<{ n: string }>(sql, params)).rows[0]!.n);
    const long = 30 * 60_000;

    // 1. The connect wave: every organisation's first sync.
    let started = Date.now();
    await inParallel(
      Array.from({ length: sizes.integrations }, () => randomUUID()),
      10,
      async (org) => {
        await connect(sandbox, org, sizes.applications);
      },
    );
    await until(
      "the first syncs",
      async () =>
        (await count(`select count(*) as n from sync_runs where model = 'applications' and state = 'succeeded'`)) >= sizes.integrations,
      long,
    );
    const connectWaveS = (Date.now() - started) / 1000;

    // 2. The weekly full sync of all, queued at once (the planning job, as the cron queues it).
    await queueWeeklyPlan(databaseUrl, schema);
    started = Date.now();
    // 3. Meanwhile a noisy organisation connects a big integration and sends its events; a quiet one connects.
    const noisy = await connect(sandbox, randomUUID(), sizes.noisyApplications);
    const events = inParallel(Array.from({ length: sizes.noisyEvents }), 20, () => dataChanged(proxy, noisy));
    await until(
      "the weekly syncs to be queued",
      async () => (await count(`select count(*) as n from sync_runs where trigger = 'weekly'`)) > 0,
      long,
    );
    const quietAt = Date.now();
    const quiet = await connect(sandbox, randomUUID(), 20);
    await until(
      "the quiet organisation's first sync to start",
      async () => (await count(`select count(*) as n from sync_runs where integration_id = $1 and started_at is not null`, [quiet])) > 0,
      long,
    );
    const quietStartS = (Date.now() - quietAt) / 1000;
    await until(
      "the quiet organisation's first sync",
      async () =>
        (await count(`select count(*) as n from sync_runs where integration_id = $1 and model = 'applications' and state = 'succeeded'`, [
          quiet,
        ])) > 0,
      long,
    );
    const quietDoneS = (Date.now() - quietAt) / 1000;
    await events;
    // Every organisation's weekly run of applications ended, none left open.
    await until(
      "the weekly full sync",
      async () =>
        (await count(`select count(*) as n from sync_runs where trigger = 'weekly' and model = 'applications' and state in ${FINAL}`)) >=
          sizes.integrations &&
        (await count(`select count(*) as n from sync_runs where trigger = 'weekly' and state not in ${FINAL}`)) === 0,
      long,
    );
    const weeklyS = (Date.now() - started) / 1000;
    // Unchanged records count as neither created nor updated: the weekly sync's work is its pages, and
    // the applications it read (every organisation's, all of them, in a full sync).
    const weeklyPages = await count(`select coalesce(sum(pages), 0) as n from sync_runs where trigger = 'weekly'`);
    const weeklyRecords = sizes.integrations * sizes.applications;
    const postgresMb =
      (await count(
        `select coalesce(sum(pg_total_relation_size(c.oid)), 0) as n from pg_class c join pg_namespace s on s.oid = c.relnamespace
        where s.nspname in ($1, $2) and c.relkind = 'r'`,
        [schema, jobQueueSchema(schema)],
      )) / 1_048_576;
    return { fair, instances, connectWaveS, weeklyS, weeklyRecords, weeklyPages, quietStartS, quietDoneS, peakRssMb: peak.rss, postgresMb };
  } finally {
    clearInterval(sampler);
    await db.end().catch(() => {});
    await Promise.all([...proxies, core].map((p) => p.stop()));
    await dropSchemas(databaseUrl, schema).catch(() => {});
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function tenantsMain(args: string[]): Promise<TenantsRow[]> {
  const smoke = args.includes("--smoke");
  const num = (name: string, full: number, short: number) => Number(option(args, name, String(smoke ? short : full)));
  const sizes: Sizes = {
    integrations: num("integrations", 1000, 5),
    applications: num("applications", 200, 20),
    noisyApplications: num("noisy-applications", 100_000, 300),
    noisyEvents: num("noisy-events", 10_000, 100),
  };
  const counts = option(args, "instances", smoke ? "1" : "1,2")
    .split(",")
    .map(Number);
  const rows: TenantsRow[] = [];
  for (const fair of [false, true]) for (const instances of counts) rows.push(await scenario(fair, instances, sizes));
  const s = sizes;
  process.stdout.write(
    `\n${s.integrations} organisations × ${s.applications} applications; noisy: ${s.noisyApplications} applications, ${s.noisyEvents} webhook events\n\n` +
      "| JOBS_FAIR | instances | connect wave s | weekly full sync s | upstream pages | applications/s | quiet first sync: start s | quiet first sync: done s | proxies' peak RSS MB | Postgres MB |\n" +
      "|---|---|---|---|---|---|---|---|---|---|\n" +
      rows
        .map(
          (r) =>
            `| ${r.fair} | ${r.instances} | ${r.connectWaveS.toFixed(1)} | ${r.weeklyS.toFixed(1)} | ${r.weeklyPages} | ${(r.weeklyRecords / r.weeklyS).toFixed(0)} | ${r.quietStartS.toFixed(1)} | ${r.quietDoneS.toFixed(1)} | ${r.peakRssMb.toFixed(0)} | ${r.postgresMb.toFixed(1)} |`,
        )
        .join("\n") +
      "\n",
  );
  return rows;
}
