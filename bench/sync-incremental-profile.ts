/**
 * A profile of the sync bench's incremental scenario (bench/sync.md), Postgres only: a sandbox of
 * APPS applications (100,000), a full sync, then ROUNDS times (3): 1,000 applications moved into
 * the candidate stage, one incremental run with no checkpoint margin (start + run, as the bench
 * times it), then plain paging of the pages it read. Prints per round the wall time and the
 * ratio; at the end the medians and the CPU the run took in the syncing process (this one), the
 * pool's Postgres backends and the sandbox (/proc), and its statements and commits.
 *
 *   node_modules/node/bin/node --max-semi-space-size=8 --import tsx bench/sync-incremental-profile.ts
 *
 * TIMELINE=1: every statement (its time on the connection), page request and answer of the last
 * round, in ms from its start (ALL=1: of every round). EXPLAIN=1: EXPLAIN (ANALYZE, BUFFERS) of the
 * page writes of the last round, each inside a transaction (a page written in one statement) or a
 * savepoint (one written in the engine's transaction) rolled back before the statement runs.
 * CPUPROF=1: a CPU profile of the last round, /tmp/sync-incremental.cpuprofile. The statements
 * are timed by wrapping pg's Client.prototype.query, in this process only.
 * FLOOR=1: the database's share of the same work without the engine: 1,000 new candidates, each
 * with its interview record, in positions of the synced integration, written by one bare INSERT
 * (no email probe, no ON CONFLICT, the schema's keys, foreign keys and triggers as they are) in one
 * committed transaction; alternated with the engine's page statement on rows of the same shape
 * (4 statements of 250, each committed); the medians of 5, against the median plain paging. With
 * EXPLAIN=1, the plan of one such statement of 250.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { writeFileSync, mkdtempSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import type { Database } from "../src/shared/db/database.js";
import { upsertPositionedCandidates } from "../src/services/recruiting/upstream/upstream-candidates.repository.js";
import { cpuSeconds, freePort, median, serveChild, waitHealthy } from "./lib.js";
import { changeApplications, plainPaging, recording, syncOnce, untilQuiet } from "./sync-child.js";

const ROUNDS = Number(process.env["ROUNDS"] ?? 3);
const APPS = process.env["APPS"] ?? "100000";
let t0 = 0;
let log: string[] = [];
const explains: string[] = [];
const times: number[] = [];
const stats = { statements: 0, commits: 0 };
const backends = new Set<number>();
/** utime + stime of a process, ms (Linux /proc; 100 ticks a second). */
const cpuMs = (pid: number) => cpuSeconds(pid) * 1000;
const cpus = {
  sync: [] as number[],
  pg: [] as number[],
  sandbox: [] as number[],
  statements: [] as number[],
  commits: [] as number[],
  plainClient: [] as number[],
  plainSandbox: [] as number[],
};
const plains: number[] = [];
/** The interview links' base, as the bench's syncs write them. */
const INTERVIEW_BASE = "http://127.0.0.1:8001/interview";
const ratios: number[] = [];
const at = () => (performance.now() - t0).toFixed(1);
const note = (s: string) => t0 && log.push(`${at()} ${s}`);

// Every statement on a pg client: start, end.
const orig = pg.Client.prototype.query as (...a: unknown[]) => unknown;
(pg.Client.prototype as unknown as { query: unknown }).query = function (this: unknown, ...args: unknown[]) {
  const cfg = args[0] as string | { text?: string };
  const text = (typeof cfg === "string" ? cfg : (cfg?.text ?? "")).replace(/\s+/g, " ").slice(0, 70);
  const s = performance.now();
  if (t0) {
    stats.statements++;
    if (/^commit/i.test(text)) stats.commits++;
    const pid = (this as { processID?: number }).processID;
    if (pid) backends.add(pid);
  }
  if (process.env["EXPLAIN"] && t0 && /^ ?with (lk|i) as/.test(text) && typeof cfg === "object") {
    const self = this as pg.Client;
    const c = cfg as { text: string; values?: unknown[] };
    const run = async () => {
      const alone = /^ ?with lk/.test(text);
      await orig.call(self, alone ? "begin" : "savepoint e");
      const plan = (await orig.call(self, {
        text: `explain (analyze, buffers) ${c.text}`,
        values: c.values ?? (args[1] as unknown[]),
      })) as { rows: { "QUERY PLAN": string }[] };
      explains.push(plan.rows.map((r) => r["QUERY PLAN"]).join("\n"));
      await orig.call(self, alone ? "rollback" : "rollback to savepoint e");
      return orig.apply(self, args);
    };
    return run();
  }
  const cb = args.find((a) => typeof a === "function") as ((...x: unknown[]) => void) | undefined;
  if (cb) {
    const i = args.indexOf(cb);
    args[i] = (...x: unknown[]) => {
      note(`  sql ${(performance.now() - s).toFixed(1)}ms ${text}`);
      cb(...x);
    };
    return orig.apply(this, args);
  }
  const r = orig.apply(this, args) as Promise<unknown>;
  if (r && typeof r.then === "function")
    r.then(
      () => note(`  sql ${(performance.now() - s).toFixed(1)}ms ${text}`),
      () => {},
    );
  return r;
};

const port = await freePort();
const sandbox = serveChild(
  ["sandbox"],
  {
    DATA_DIR: mkdtempSync(join(tmpdir(), "hirebridge-profile-sandbox-")),
    SANDBOX_PORT: String(port),
    SANDBOX_APPLICATIONS: APPS,
    UPSTREAM_API_KEY: "bench-api-key",
    UPSTREAM_WEBHOOK_SECRET: "x",
    SANDBOX_WEBHOOK_URL: "http://127.0.0.1:9/none",
  },
  ["--max-semi-space-size=8"],
);
try {
  const origin = `http://127.0.0.1:${port}`;
  await waitHealthy(`${origin}/healthz`, sandbox.child);
  const integrationId = ((await (await fetch(`${origin}/sandbox/integrations`)).json()) as { demo_integration_id: string })
    .demo_integration_id;
  const f = await syncOnce("postgres", `${origin}/v1`, integrationId, true);
  console.log(`full sync ${f.seconds.toFixed(2)} s`);
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 100 });
  for (let round = 0; round < ROUNDS; round++) {
    await changeApplications(origin, integrationId, 1000);
    await untilQuiet(sandbox.child.pid);
    await f.base.page(integrationId, "/ats/applications", { page_size: "1", updated_after: new Date().toISOString() });
    const rec = recording(f.base);
    const timed = {
      ...rec.reader,
      page: async (...a: Parameters<typeof rec.reader.page>) => {
        note(`page> ${a[2]["cursor"] ? "next" : "first"}`);
        const p = await rec.reader.page(...a);
        note(`page< ${p.results.length}`);
        return p as never;
      },
    };
    // No checkpoint margin, as the bench's incremental runs: each round reads the changes since the one before it.
    const engine = f.engineFor(timed as typeof rec.reader, 0);
    if (round === ROUNDS - 1 && process.env["CPUPROF"]) await session.post("Profiler.start");
    log = [];
    stats.statements = 0;
    stats.commits = 0;
    // Postgres backends of the pool: those seen so far (the run may open more: counted from the next round).
    const pgBefore = new Map([...backends].map((p) => [p, cpuMs(p)]));
    const sandboxBefore = cpuMs(sandbox.child.pid!);
    const cpuBefore = process.cpuUsage();
    t0 = performance.now();
    note("start");
    await engine.start({ integrationId, orgId: f.setup.orgId, models: ["applications"], type: "DELTA", trigger: "bench" });
    note("started; run");
    await engine.run({ integrationId, model: "applications" }, { last: true });
    note("done");
    const ms = performance.now() - t0;
    t0 = 0;
    const cpu = process.cpuUsage(cpuBefore);
    cpus.sync.push((cpu.user + cpu.system) / 1000);
    cpus.pg.push([...pgBefore].reduce((sum, [p, before]) => sum + cpuMs(p) - before, 0));
    cpus.sandbox.push(cpuMs(sandbox.child.pid!) - sandboxBefore);
    cpus.statements.push(stats.statements);
    cpus.commits.push(stats.commits);
    if (round === ROUNDS - 1 && process.env["CPUPROF"]) {
      const { profile } = await session.post("Profiler.stop");
      writeFileSync("/tmp/sync-incremental.cpuprofile", JSON.stringify(profile));
    }
    const plainCpu = process.cpuUsage();
    const plainSandbox = cpuMs(sandbox.child.pid!);
    const plain = (await plainPaging(`${origin}/v1`, integrationId, rec.requests)) * 1000;
    const pc = process.cpuUsage(plainCpu);
    cpus.plainClient.push((pc.user + pc.system) / 1000);
    cpus.plainSandbox.push(cpuMs(sandbox.child.pid!) - plainSandbox);
    times.push(ms);
    plains.push(plain);
    ratios.push(ms / plain);
    console.log(
      `round ${round}: incremental ${ms.toFixed(1)} ms, plain ${plain.toFixed(1)} ms, ratio ${(ms / plain).toFixed(2)}, pages ${rec.requests.length}, records ${rec.records()}`,
    );
    if (process.env["TIMELINE"] && (round === ROUNDS - 1 || process.env["ALL"])) console.log(log.join("\n"));
    if (round === ROUNDS - 1) console.log(explains.join("\n-----\n"));
    explains.length = 0;
  }
  console.log(
    `median CPU ms: syncing process ${median(cpus.sync).toFixed(0)}, Postgres backends ${median(cpus.pg).toFixed(0)}, sandbox ${median(cpus.sandbox).toFixed(0)}; statements ${median(cpus.statements)}, commits ${median(cpus.commits)}`,
  );
  console.log(
    `median CPU ms of plain paging: its client ${median(cpus.plainClient).toFixed(1)}, the sandbox ${median(cpus.plainSandbox).toFixed(0)} (/proc: 10 ms ticks)`,
  );
  console.log(
    `median incremental ${median(times).toFixed(1)} ms, plain ${median(plains).toFixed(1)} ms, ratio ${median(ratios).toFixed(2)}`,
  );
  if (process.env["FLOOR"]) await floor(f.setup.database, f.setup.orgId, median(plains));
  await f.setup.close();
} finally {
  await sandbox.stop();
}

/** FLOOR=1 (see the header): the bare write of 1,000 candidates and their interview records, and ours. */
async function floor(database: Database, orgId: string, plainMs: number): Promise<void> {
  const positions = (await database.query<{ id: string }>("select id from positions where candidate_stage is not null order by id")).map(
    (r) => r.id,
  );
  const apps = (tag: string) =>
    Array.from({ length: 1000 }, (_, k) => ({
      position_id: positions[(k * 7 + tag.length) % positions.length]!,
      upstream_application_id: `${tag}-${k}-${randomBytes(6).toString("hex")}`,
      name: `Floor Candidate ${tag}-${k}`,
      email: `${tag}.${k}.${randomBytes(3).toString("hex")}@example.com`,
      phone: "+1 555 0100",
      language: "en",
      tags: [] as string[],
    }));
  const bare: number[] = [];
  const bareCpu: number[] = [];
  const ours: number[] = [];
  // Alternated, so that both meet the same machine and the same table sizes.
  for (let rep = 0; rep < 5; rep++) {
    const rows = apps(`bare${rep}`).map((a) => ({
      cid: randomUUID(),
      iid: randomUUID(),
      p: a.position_id,
      a: a.upstream_application_id,
      name: a.name,
      email: a.email,
      phone: a.phone,
      lang: a.language,
      tags: a.tags,
      link: randomBytes(24).toString("base64url"),
    }));
    let t = performance.now();
    await database.rawTransaction(async (_exec, query) => {
      const [{ pid }] = (await query<{ pid: number }>("select pg_backend_pid() as pid")) as [{ pid: number }];
      const before = cpuMs(pid);
      t = performance.now();
      await query(
        `with i as (select * from jsonb_to_recordset($1::jsonb)
                      as i(cid uuid, iid uuid, p uuid, a text, name text, email text, phone text, lang text, tags text[], link text)),
              c as (insert into candidates (id, organization_id, position_id, upstream_application_id, name, email, phone, language, tags)
                    select cid, $2::uuid, p, a, name, email, phone, lang, tags from i)
         insert into interviews (id, organization_id, candidate_id, interview_link)
         select iid, $2::uuid, cid, $3 || '/' || link from i`,
        [JSON.stringify(rows), orgId, INTERVIEW_BASE],
      );
      bareCpu.push(cpuMs(pid) - before);
    });
    bare.push(performance.now() - t);
    // Ours: the engine's page statement (without its record: no run to record on here), 250
    // applications a statement as the engine's pages, each committed on its own.
    const mine = apps(`ours${rep}`);
    t = performance.now();
    for (let i = 0; i < mine.length; i += 250) await upsertPositionedCandidates(database.db, orgId, mine.slice(i, i + 250), INTERVIEW_BASE);
    ours.push(performance.now() - t);
  }
  const line = (what: string, ms: number[]) =>
    `${what}: ${ms.map((x) => x.toFixed(1)).join(", ")} ms, median ${median(ms).toFixed(1)} ms = ${(median(ms) / plainMs).toFixed(2)} x the median plain paging`;
  console.log(line("floor: a bare INSERT of 1,000 candidates with their interview records, committed", bare));
  console.log(line("ours: the engine's page statement, 4 x 250 applications, each committed", ours));
  console.log(`the bare INSERT's Postgres backend CPU: ${bareCpu.join(", ")} ms (/proc: 10 ms ticks), median ${median(bareCpu)} ms`);
  if (process.env["EXPLAIN"]) {
    // Explained by the pg hook above (t0 set), inside a transaction rolled back.
    await database.db
      .transaction(async (tx) => {
        t0 = performance.now();
        await upsertPositionedCandidates(tx, orgId, apps("explain").slice(0, 250), INTERVIEW_BASE);
        t0 = 0;
        tx.rollback();
      })
      .catch(() => {});
    console.log(explains.join("\n-----\n"));
  }
}
