/**
 * `npm run bench -- privacy [--smoke] [--erase 10000] [--candidates 100000] [--due 0.1] [--orgs 10]`
 *
 * Issue 41's bench: (1) erasing `--erase` candidates of one organisation through the erasure path
 * the retention job uses (its policy due at once, one run with its per-run bound lifted), and (2) a
 * retention run over `--candidates` candidates of `--orgs` organisations of which the share `--due`
 * is due (rejected, with a 0-day rejection rule), with the job's default per-run bound. While each
 * runs, the recruiting API (in this process, on Postgres: a fresh schema of BENCH_DATABASE_URL,
 * default the local `test` database, dropped after) answers another organisation's candidate list
 * one request after another: its p50/p99 against the same requests with nothing running.
 * Candidates are inserted with one statement per organisation (generate_series), not through the
 * API: the bench measures erasure, not intake. It fails on any answer it did not expect (a status
 * other than 200, a count of erased candidates other than the due ones).
 */
import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import { sql } from "drizzle-orm";
import { candidateErasure, recruitingOwnership } from "../src/runtime/wiring.js";
import { buildRecruitingApp } from "../src/services/recruiting/app.js";
import { createRetention } from "../src/services/retention/module.js";
import { openDatabase, type Database } from "../src/shared/db/database.js";
import { migrate } from "../src/shared/db/migrate.js";
import { dropSchemas } from "../src/shared/db/pg-schemas.js";
import { startTestIdentity, type TestLogin } from "../test/helpers/auth.js";
import { silentLogger, testConfig } from "../test/helpers/config.js";
import { machine, median, option } from "./lib.js";

const URL_DEFAULT = "postgres://postgres@127.0.0.1:5432/test";

/** Inserts `n` candidates in one new position of `orgId`, `due` of them rejected; answers the position's id. */
async function seed(db: Database, orgId: string, n: number, due: number): Promise<string> {
  const result = await db.db.execute(
    sql`insert into positions (organization_id, name, state) values (${orgId}, 'Bench', 'active') returning id`,
  );
  const positionId = (result as unknown as { rows: { id: string }[] }).rows[0]!.id;
  await db.db.execute(sql`
    insert into candidates (organization_id, position_id, name, email, phone, language, state)
    select ${orgId}, ${positionId}, 'Bench Candidate ' || i, 'c' || i || '@bench.example', '+1 555 0100', 'en',
      case when i <= ${due} then 'rejected' else 'new' end
    from generate_series(1, ${n}) i`);
  return positionId;
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))] ?? 0;

/** GETs `url` one request after another until `done()`; the latencies (ms). Throws on a status other than 200. */
async function probe(url: string, token: string, done: () => boolean, minimum = 20): Promise<number[]> {
  const ms: number[] = [];
  while (!done() || ms.length < minimum) {
    const t0 = performance.now();
    const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`the API answered ${res.status} meanwhile`);
    ms.push(performance.now() - t0);
  }
  return ms;
}

/** Runs `work` while the API is probed; its time and the latencies meanwhile. */
async function during<T>(url: string, token: string, work: () => Promise<T>): Promise<{ result: T; seconds: number; ms: number[] }> {
  let finished = false;
  const t0 = performance.now();
  const probing = probe(url, token, () => finished, 1);
  const result = await work().finally(() => {
    finished = true;
  });
  const seconds = (performance.now() - t0) / 1000;
  return { result, seconds, ms: await probing };
}

const count = async (db: Database) =>
  Number(((await db.db.execute(sql`select count(*)::int as n from candidates`)) as unknown as { rows: { n: number }[] }).rows[0]!.n);

export async function main(args: string[]): Promise<void> {
  const smoke = args.includes("--smoke");
  const eraseN = Number(option(args, "erase", smoke ? "200" : "10000"));
  const total = Number(option(args, "candidates", smoke ? "1000" : "100000"));
  const dueShare = Number(option(args, "due", "0.1"));
  const orgs = Number(option(args, "orgs", smoke ? "2" : "10"));
  const url = process.env["BENCH_DATABASE_URL"] ?? URL_DEFAULT;
  const schema = `bench_privacy_${randomBytes(4).toString("hex")}`;
  const database = await openDatabase({ url, schema, poolSize: 8 });
  try {
    await migrate(database);
    const identity = await startTestIdentity(database);
    const config = testConfig();
    const retention = createRetention({ config, database, logger: silentLogger(), erase: candidateErasure(database, config) });
    const app = await buildRecruitingApp({
      config: testConfig({ RATE_LIMIT_PER_MINUTE: 1_000_000 }),
      database,
      logger: silentLogger(),
      verify: identity.verify,
      ownership: recruitingOwnership(database),
      modules: [retention.routes],
    });
    await app.listen({ host: "127.0.0.1", port: 0 });
    const api = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1`;
    try {
      const watcher: TestLogin = await identity.login();
      const watched = await seed(database, watcher.orgId, 50, 0);
      const listUrl = `${api}/org/${watcher.orgId}/positions/${watched}/`;
      const quiet = await probe(listUrl, watcher.accessToken, () => true, smoke ? 20 : 200);

      // (1) One organisation's candidates, all due at once, erased in one run.
      const eraser = await identity.login();
      await seed(database, eraser.orgId, eraseN, 0);
      await retentionPolicy(api, eraser, { candidate_days_after_last_change: 0 });
      const bulk = createRetention({
        config: { ...config, RETENTION_MAX_CANDIDATES_PER_RUN: eraseN },
        database,
        logger: silentLogger(),
        erase: candidateErasure(database, config),
      });
      const erased = await during(listUrl, watcher.accessToken, () => bulk.run(new Date(Date.now() + 1000)));
      if (erased.result.counts["candidates"] !== eraseN) throw new Error(`erased ${erased.result.counts["candidates"]}, not ${eraseN}`);

      // (2) A retention run over `total` candidates of `orgs` organisations, `dueShare` of them due.
      const perOrg = Math.floor(total / orgs);
      const duePerOrg = Math.floor(perOrg * dueShare);
      for (let i = 0; i < orgs; i++) {
        const user = await identity.login();
        await seed(database, user.orgId, perOrg, duePerOrg);
        await retentionPolicy(api, user, { candidate_days_after_rejection: 0 });
      }
      const before = await count(database);
      const run = await during(listUrl, watcher.accessToken, () => retention.run(new Date(Date.now() + 1000)));
      const expected = Math.min(duePerOrg * orgs, config.RETENTION_MAX_CANDIDATES_PER_RUN);
      if (run.result.counts["candidates"] !== expected || before - (await count(database)) !== expected)
        throw new Error(`the retention run erased ${run.result.counts["candidates"]}, not ${expected}`);

      report({ machine: machine(), eraseN, total: before, expected, quiet, erased, run, perRun: config.RETENTION_MAX_CANDIDATES_PER_RUN });
    } finally {
      await app.close();
      await identity.close();
    }
  } finally {
    await database.close();
    await dropSchemas(url, schema);
  }
}

async function retentionPolicy(api: string, user: TestLogin, body: object): Promise<void> {
  const res = await fetch(`${api}/org/${user.orgId}/data-retention`, {
    method: "PUT",
    headers: { authorization: `Bearer ${user.accessToken}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (res.status !== 200) throw new Error(`PUT data-retention answered ${res.status}`);
}

type Timed = { seconds: number; ms: number[] };
function report(r: {
  machine: string;
  eraseN: number;
  total: number;
  expected: number;
  quiet: number[];
  erased: Timed;
  run: Timed;
  perRun: number;
}) {
  const f = (n: number) => n.toFixed(1);
  const line = (what: string, n: number, t: Timed) =>
    `| ${what} | ${n.toLocaleString("en")} | ${t.seconds.toFixed(2)} | ${Math.round(n / t.seconds)} | ${t.ms.length} | ${f(median(t.ms))} | ${f(pct(t.ms, 0.99))} |`;
  const out = [
    `Privacy bench (issue 41), Postgres, ${r.machine}`,
    "",
    "| scenario | candidates erased | seconds | erased/s | API requests meanwhile | API p50 ms | API p99 ms |",
    "| --- | --- | --- | --- | --- | --- | --- |",
    `| API alone (nothing running) | 0 | - | - | ${r.quiet.length} | ${f(median(r.quiet))} | ${f(pct(r.quiet, 0.99))} |`,
    line("erase all candidates of one organisation", r.eraseN, r.erased),
    line(`retention run over ${r.total.toLocaleString("en")} candidates (bound ${r.perRun}/run)`, r.expected, r.run),
    "",
  ];
  process.stdout.write(`${out.join("\n")}\n`);
}
