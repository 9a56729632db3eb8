/**
 * `npm run bench -- webhooks-out [--smoke] [--rounds 3] [--events 20000] [--rate 20] [--steady 10] [--changes 1000] [--duration 5]`
 *
 * Outbound webhooks (docs/webhooks-out.md) from one instance: `hirebridge serve token api` built as
 * production runs it (dist/, the start script's Node flags), on Postgres (a fresh schema of
 * BENCH_DATABASE_URL, default the local `test` database, dropped after), delivering to a fast
 * local receiver (bench/webhooks-receiver.ts: plain node:http in a process of its own, checking
 * every signature with one HMAC). Method in bench/webhooks-out.md. It measures:
 *   - floors: the HMAC-SHA256 signing rate of a delivery's content (this process), and the rate at
 *     which plain HTTP POSTs of a signed delivery reach the same receiver (autocannon, as many
 *     connections as the dispatcher keeps per endpoint);
 *   - throughput: `--events` events put in the outbox in one commit, then one change through the
 *     API that wakes the dispatcher; events delivered per second until the last arrives;
 *   - latency at a low steady rate (`--rate` positions created per second through the API for
 *     `--steady` s, nothing queued): from each request sent to its event's delivery (an upper
 *     bound of commit → delivery), p50 and p99, beside the API's own answer time;
 *   - database writes per change (rows inserted, updated and deleted in every table of the schema,
 *     pg_stat_user_tables) for `--changes` candidate updates through the API, with 1 endpoint and
 *     with 10: the second may add no more than one row per extra delivery (its attempt);
 *   - the instance's RSS: idle, after the runs, and its peak.
 * It fails on any answer it did not expect: an API status, a bad signature, a duplicate, a missing
 * delivery, an event left pending, or fan-out writing more than its deliveries.
 */
import { type ChildProcess, fork } from "node:child_process";
import { once } from "node:events";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { signatureHeader } from "../src/services/webhooks-out/signing.js";
import { openDatabase, type Database } from "../src/shared/db/database.js";
import { dropSchemas } from "../src/shared/db/pg-schemas.js";
import {
  assertAnswers,
  autocannon,
  DEMO_ORG,
  demoToken,
  buildOnce,
  freePort,
  machine,
  median,
  memoryOf,
  option,
  productionNodeFlags,
  ROOT,
  serveChild,
  settings,
  waitHealthy,
} from "./lib.js";

/** Attempts the dispatcher runs at once per endpoint (src/services/webhooks-out/dispatcher.ts). */
const PER_ENDPOINT_CONCURRENCY = 8;
const FANOUT = 10;

type Counts = { valid: number; invalid: number; duplicates: number; counted: number };

/** The receiver process and its IPC, one request at a time. */
async function startReceiver(): Promise<{
  url: string;
  child: ChildProcess;
  ask<T>(msg: Record<string, unknown>): Promise<T>;
  stop(): Promise<void>;
}> {
  const child = fork(join(ROOT, "bench/webhooks-receiver.ts"), [], {
    execArgv: ["--import", "tsx"],
    env: { ...process.env, NODE_NO_WARNINGS: "1" },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const [{ port }] = (await once(child, "message")) as [{ port: number }];
  let chain: Promise<unknown> = Promise.resolve();
  const ask = <T>(msg: Record<string, unknown>): Promise<T> => {
    const answer = chain.then(async () => {
      child.send(msg);
      return ((await once(child, "message")) as [T])[0];
    });
    chain = answer.catch(() => {});
    return answer;
  };
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    ask,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** A JSON call to the API; throws unless it answers `status`. */
async function api<T>(url: string, token: string, method: string, body: unknown, status = 200): Promise<T> {
  const res = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (res.status !== status) throw new Error(`${method} ${url}: expected ${status}, got ${res.status} ${text.slice(0, 300)}`);
  return (text ? JSON.parse(text) : null) as T;
}

/** Polls `read` (every 20 ms) until `done` holds; throws after `timeoutMs` saying what was awaited. */
async function until<T>(what: string, read: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s (last: ${JSON.stringify(v)})`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * p))] ?? Number.NaN;
};

/**
 * Rows written (inserted + updated + deleted) in every table of the schema, and the attempts
 * recorded (counted in their table), once the backends' statistics settled: a backend that
 * flushed them less than a second ago holds new ones up to 10 s (PGSTAT_IDLE_INTERVAL), so the
 * figures are read until two readings 11 s apart agree.
 */
async function rowsWritten(db: Database, schema: string): Promise<{ all: number; attempts: number }> {
  const read = async () => {
    const [row] = await db.query<{ n: string; attempts: number }>(
      `select (select sum(n_tup_ins + n_tup_upd + n_tup_del) from pg_stat_user_tables where schemaname = $1)::text as n,
              (select count(*)::int from webhook_attempts) as attempts`,
      [schema],
    );
    return { all: Number(row!.n), attempts: row!.attempts };
  };
  let last = await read();
  for (let i = 0; i < 10; i++) {
    await new Promise((r) => setTimeout(r, 11_000));
    const next = await read();
    if (next.all === last.all) return next;
    last = next;
  }
  throw new Error("the table statistics did not settle");
}

type Setup = {
  base: string;
  token: string;
  db: Database;
  schema: string;
  rx: Awaited<ReturnType<typeof startReceiver>>;
};

/** A new endpoint of the demo organisation on the receiver's `path`, its secret given to the receiver. */
async function addEndpoint(s: Setup, path: string): Promise<void> {
  const created = await api<{ secret: string }>(`${s.base}/webhook-endpoints`, s.token, "POST", { url: `${s.rx.url}${path}` });
  await s.rx.ask({ cmd: "secret", path, secret: created.secret });
}

/** Fails unless the receiver got only valid deliveries, none twice. */
async function checkReceived(s: Setup, scenario: string): Promise<Counts> {
  const c = await s.rx.ask<Counts>({ cmd: "count" });
  if (c.invalid || c.duplicates) throw new Error(`${scenario}: ${c.invalid} deliveries failed verification, ${c.duplicates} came twice`);
  return c;
}

/** Waits until no event is pending and no delivery queued (their records follow the deliveries), and no attempt failed. */
async function noneLeftPending(s: Setup, scenario: string): Promise<void> {
  const read = async () =>
    (
      await s.db.query<{ pending: number; queued: number; failed: number }>(
        `select (select count(*)::int from webhook_messages where pending) as pending,
                (select count(*)::int from webhook_deliveries) as queued,
                (select count(*)::int from webhook_attempts where not ok) as failed`,
      )
    )[0]!;
  const row = await until(`${scenario}: the outbox and the retry queue emptied`, read, (r) => !r.pending && !r.queued, 60_000).catch(() =>
    read(),
  );
  if (row.pending || row.queued || row.failed) {
    throw new Error(`${scenario}: ${row.pending} events pending, ${row.queued} deliveries queued, ${row.failed} attempts failed`);
  }
}

/** `n` events in the outbox in one commit (as a bulk change records them), then one API change that wakes the dispatcher. */
async function throughput(s: Setup, n: number): Promise<number> {
  await s.rx.ask({ cmd: "reset" });
  await s.db.query(
    `insert into webhook_messages (organization_id, type, data)
     select $1, 'candidate.updated', json_build_object(
       'id', gen_random_uuid(), 'position_id', gen_random_uuid(), 'name', 'Candidate ' || g, 'email', 'candidate' || g || '@example.com',
       'phone', '+1 555 0100', 'language', 'en', 'tags', json_build_array('bench'), 'score', null, 'stage', 'Applied',
       'created_at', now(), 'updated_at', now())
       from generate_series(1, $2) g`,
    [DEMO_ORG, n],
  );
  const started = performance.timeOrigin + performance.now();
  await api(`${s.base}/position`, s.token, "POST", { name: "Bench: wake" });
  await until(
    `throughput: ${n + 1} deliveries`,
    () => s.rx.ask<Counts>({ cmd: "count" }),
    (c) => c.valid + c.invalid >= n + 1,
    300_000,
  );
  await checkReceived(s, "throughput");
  const { arrivals } = await s.rx.ask<{ arrivals: [string, string, number][] }>({ cmd: "arrivals" });
  const last = Math.max(...arrivals.map((a) => a[2]));
  await noneLeftPending(s, "throughput");
  return (n + 1) / ((last - started) / 1000);
}

/** Positions created at `rate` per second for `seconds`: each request's time to its event's delivery, and the API's answer time. */
async function latency(s: Setup, rate: number, seconds: number): Promise<{ delivery: number[]; answer: number[] }> {
  await s.rx.ask({ cmd: "reset" });
  const sent = new Map<string, { at: number; answered: number }>();
  const total = Math.max(1, Math.round(rate * seconds));
  const start = performance.now();
  const calls: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / rate;
    await new Promise((r) => setTimeout(r, Math.max(0, due - performance.now())));
    const at = performance.timeOrigin + performance.now();
    calls.push(
      api<{ id: string }>(`${s.base}/position`, s.token, "POST", { name: `Bench: steady ${i}` }).then((p) => {
        sent.set(p.id, { at, answered: performance.timeOrigin + performance.now() - at });
      }),
    );
  }
  await Promise.all(calls);
  await until(
    `latency: ${total} deliveries`,
    () => s.rx.ask<Counts>({ cmd: "count" }),
    (c) => c.valid + c.invalid >= total,
  );
  await checkReceived(s, "latency");
  const { arrivals } = await s.rx.ask<{ arrivals: [string, string, number][] }>({ cmd: "arrivals" });
  const ids = arrivals.map((a) => a[1]);
  const rows = await s.db.query<{ id: string; position: string }>(
    "select id, data->>'id' as position from webhook_messages where id = any($1::uuid[])",
    [ids],
  );
  const positionOf = new Map(rows.map((r) => [r.id, r.position]));
  const delivery = arrivals.map(([, id, at]) => {
    const req = sent.get(positionOf.get(id) ?? "");
    if (!req) throw new Error(`latency: delivery ${id} is of no position this run created`);
    return at - req.at;
  });
  return { delivery, answer: [...sent.values()].map((v) => v.answered) };
}

/** Candidate updates through the API, `changes` of them (4 at a time), all delivered to every endpoint: rows written per change. */
async function writesPerChange(
  s: Setup,
  candidate: string,
  changes: number,
  endpoints: number,
): Promise<{ rows: number; attempts: number }> {
  await s.rx.ask({ cmd: "reset" });
  const before = await rowsWritten(s.db, s.schema);
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < changes) {
        const i = next++;
        await api(`${candidate}`, s.token, "PUT", { tags: [`change ${i}`] });
      }
    }),
  );
  await until(
    `fan-out to ${endpoints}: ${changes * endpoints} deliveries`,
    () => s.rx.ask<Counts>({ cmd: "count" }),
    (c) => c.valid + c.invalid >= changes * endpoints,
  );
  await checkReceived(s, `fan-out to ${endpoints}`);
  await noneLeftPending(s, `fan-out to ${endpoints}`);
  const after = await rowsWritten(s.db, s.schema);
  return { rows: (after.all - before.all) / changes, attempts: (after.attempts - before.attempts) / changes };
}

/** The floors: HMAC signing of a delivery's content, and plain POSTs of a signed delivery to the receiver. */
async function floors(s: Setup, duration: number, n: number): Promise<{ signs: number; posts: number }> {
  const secret = `whsec_${randomBytes(32).toString("base64")}`;
  const body = JSON.stringify({
    type: "candidate.updated",
    timestamp: new Date().toISOString(),
    data: { id: "0193a6b0-0000-7000-8000-000000000000", name: "Candidate 1", email: "candidate1@example.com", tags: ["bench"] },
  });
  const t = performance.now();
  for (let i = 0; i < n; i++) signatureHeader([secret], `msg_${i}`, 1_700_000_000 + i, body);
  const signs = n / ((performance.now() - t) / 1000);
  const ts = Math.floor(Date.now() / 1000);
  const headers = {
    "content-type": "application/json",
    "webhook-id": "floor",
    "webhook-timestamp": String(ts),
    "webhook-signature": signatureHeader([secret], "floor", ts, body),
  };
  await s.rx.ask({ cmd: "reset" });
  const r = await autocannon({
    url: `${s.rx.url}/floor`,
    method: "POST",
    headers,
    body,
    connections: PER_ENDPOINT_CONCURRENCY,
    duration,
  });
  assertAnswers("plain POST to the receiver", r);
  const c = await s.rx.ask<Counts>({ cmd: "count" });
  if (c.counted < r["2xx"]) throw new Error(`floor: the receiver counted ${c.counted} of ${r["2xx"]} POSTs`);
  return { signs, posts: r.requests.average };
}

export async function main(args: string[]): Promise<void> {
  const set = settings(args, { rounds: 3, duration: 5, connections: PER_ENDPOINT_CONCURRENCY });
  const events = Number(option(args, "events", set.smoke ? "2000" : "20000"));
  const rate = Number(option(args, "rate", "20"));
  const steady = Number(option(args, "steady", set.smoke ? "2" : "10"));
  const changes = Number(option(args, "changes", set.smoke ? "40" : "1000"));
  buildOnce();
  const url = process.env["BENCH_DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";
  const schema = `bench_wh_${randomBytes(4).toString("hex")}`;
  const dataDir = mkdtempSync(join(tmpdir(), "hirebridge-bench-webhooks-"));
  const [apiPort, authPort] = [await freePort(), await freePort()];
  const rx = await startReceiver();
  const server = serveChild(
    ["token", "api"],
    {
      HOST: "127.0.0.1",
      API_PORT: String(apiPort),
      AUTH_PORT: String(authPort),
      DATA_DIR: dataDir,
      DATABASE_URL: url,
      DATABASE_SCHEMA: schema,
      // The receiver is on this machine; production (`public`) would refuse it.
      WEBHOOK_TARGETS: "loopback",
      // One benchmark caller is far above any per-caller limit; the limits are not what is measured.
      RATE_LIMIT_PER_MINUTE: "0",
      RATE_LIMIT_ORG_PER_MINUTE: "0",
      TOKEN_RATE_LIMIT_PER_MINUTE: "0",
    },
    productionNodeFlags(),
    { compiled: true },
  );
  let db: Database | undefined;
  try {
    await waitHealthy(`http://127.0.0.1:${authPort}/healthz`, server.child);
    await waitHealthy(`http://127.0.0.1:${apiPort}/healthz`, server.child);
    const idle = memoryOf(server.child.pid);
    db = await openDatabase({ url, schema, poolSize: 2 });
    const token = await demoToken(`http://127.0.0.1:${authPort}/realms/hirebridge`);
    const s: Setup = { base: `http://127.0.0.1:${apiPort}/api/v1/org/${DEMO_ORG}`, token, db, schema, rx };
    await addEndpoint(s, "/e0");

    const floor = { signs: [] as number[], posts: [] as number[] };
    const delivered: number[] = [];
    // Warm-up: the instance's code paths, connections and the receiver.
    await throughput(s, Math.min(events, 500));
    for (let r = 0; r < set.rounds; r++) {
      const f = await floors(s, set.duration, set.smoke ? 20_000 : 200_000);
      floor.signs.push(f.signs);
      floor.posts.push(f.posts);
      delivered.push(await throughput(s, events));
    }
    const afterLoad = memoryOf(server.child.pid);
    const lat = await latency(s, rate, steady);

    const position = await api<{ id: string }>(`${s.base}/position`, token, "POST", { name: "Bench: fan-out" });
    const candidate = await api<{ id: string }>(`${s.base}/positions/${position.id}/`, token, "POST", {
      name: "Fan Out",
      email: "fan.out@example.com",
      phone: "+1 555 0100",
      language: "en",
    });
    const candidateUrl = `${s.base}/positions/${position.id}/candidates/${candidate.id}/`;
    await until(
      "the set-up's deliveries",
      () => rx.ask<Counts>({ cmd: "count" }),
      (c) => c.valid >= 2,
      30_000,
    );
    const one = await writesPerChange(s, candidateUrl, changes, 1);
    for (let i = 1; i < FANOUT; i++) await addEndpoint(s, `/e${i}`);
    const ten = await writesPerChange(s, candidateUrl, changes, FANOUT);
    const peak = memoryOf(server.child.pid);

    const problems: string[] = [];
    if (Math.abs(one.attempts - 1) > 0.01 || Math.abs(ten.attempts - FANOUT) > 0.01) {
      problems.push(`attempts per change: ${one.attempts} with 1 endpoint, ${ten.attempts} with ${FANOUT} (expected 1 and ${FANOUT})`);
    }
    // Fan-out may add one row per extra delivery (its attempt), and nothing else.
    if (ten.rows - one.rows > ten.attempts - one.attempts + 0.05) {
      problems.push(`fan-out to ${FANOUT} writes ${ten.rows.toFixed(2)} rows per change, against ${one.rows.toFixed(2)} for 1 endpoint`);
    }

    const d = median(delivered);
    const posts = median(floor.posts);
    const mb = (m: { rssMb: number; peakMb: number } | undefined, k: "rssMb" | "peakMb") => (m ? m[k].toFixed(0) : "n/a");
    const lines = [
      "",
      `Machine: ${machine()}. Command: npm run bench -- webhooks-out ${args.join(" ")}`,
      `One instance (\`serve token api\`, compiled, Postgres), ${set.rounds} rounds, medians. Targets: ≥ 1,000 events/s; p99 commit → delivery < 100 ms.`,
      "",
      "| scenario | events/s | ratio to plain POSTs |",
      "|---|---:|---:|",
      `| floor: HMAC-SHA256 signatures/s (this process) | ${median(floor.signs).toFixed(0)} | |`,
      `| floor: plain POSTs of a signed delivery to the receiver, ${PER_ENDPOINT_CONCURRENCY} connections | ${posts.toFixed(0)} | 1.00 |`,
      `| ${events.toLocaleString("en")} events from the outbox to 1 endpoint | ${d.toFixed(0)} | ${(d / posts).toFixed(2)} |`,
      "",
      `| steady rate | events | request → delivery p50 ms | p99 ms | API answer p50 ms (floor) | p99 ms |`,
      "|---|---:|---:|---:|---:|---:|",
      `| ${rate}/s for ${steady} s | ${lat.delivery.length} | ${pct(lat.delivery, 0.5).toFixed(1)} | ${pct(lat.delivery, 0.99).toFixed(1)} | ${pct(lat.answer, 0.5).toFixed(1)} | ${pct(lat.answer, 0.99).toFixed(1)} |`,
      "",
      "| endpoints | deliveries per change | rows written per change (all tables) | rows beyond the deliveries' attempts |",
      "|---:|---:|---:|---:|",
      `| 1 | ${one.attempts.toFixed(2)} | ${one.rows.toFixed(2)} | ${(one.rows - one.attempts).toFixed(2)} |`,
      `| ${FANOUT} | ${ten.attempts.toFixed(2)} | ${ten.rows.toFixed(2)} | ${(ten.rows - ten.attempts).toFixed(2)} |`,
      "",
      "| instance | idle RSS MB | RSS after the throughput runs MB | peak RSS MB |",
      "|---|---:|---:|---:|",
      `| serve token api (postgres) | ${mb(idle, "rssMb")} | ${mb(afterLoad, "rssMb")} | ${mb(peak, "peakMb")} |`,
    ];
    process.stdout.write(`${lines.join("\n")}\n`);
    if (problems.length) throw new Error(`webhooks-out bench: ${problems.join("; ")}`);
  } finally {
    await db?.close();
    await server.stop();
    await rx.stop();
    await dropSchemas(url, schema);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
