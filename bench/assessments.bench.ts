/**
 * `npm run bench -- assessments [--smoke] [--rounds 3] [--orders 1000] [--duplicates 100] [--jobs 1] [--connections 50] [--rate 20] [--steady 10] [--inline 20]`
 *
 * Issue 40's "fast and bounded": assessment orders (docs/assessments.md) arriving as signed webhooks
 * at the proxy's order receivers, which decide each one before answering (the candidate, its
 * interview and link commit before the 200). The services run as production runs them, each in a
 * process of its own, built (dist/) with the start script's Node flags, on Postgres (a fresh schema
 * of BENCH_DATABASE_URL, default the local `test` database, dropped after): `hirebridge serve proxy`
 * (the receivers, with its job workers) and `hirebridge serve token api sandbox` beside it. Set-up
 * as a customer's: an ASSESSMENT integration of the demo organisation made in the sandbox (its
 * integration-created webhook tells the proxy), a template position made through the recruiting
 * API and published to that integration as a package. Method in bench/assessments.md. Measured:
 *   - floors: the HMAC-SHA256 verification rate of an order's body (this process, as the receiver
 *     checks it), and node:http + one pg `select 1` (bench/floors.ts) sent the same POSTs by the same
 *     client, at once and at the steady rate;
 *   - latency, nothing queued: `--rate` orders/s for `--steady` s, each from send to its answer
 *     (= the candidate with its interview link committed), p50 and p99 against the 1 s target;
 *   - the burst (each round): `--orders` distinct orders over `--jobs` jobs sent at once through
 *     `--connections` connections, `--duplicates` of them sent a second time among them; orders/s,
 *     wall time, the proxy's CPU per order and RSS; then, checked in the database: one accepted
 *     order record and one candidate per order, each with an interview `not_started` and its link;
 *   - inline orders: `--inline` at the steady rate, each answer's `assessment_url` the candidate's
 *     interview link, against the 2 s target.
 * It fails on any answer it did not expect (a status, a body, an order accepted twice or not at
 * all, a candidate missing, doubled or without its link); the targets are printed, not asserted.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Pool } from "undici";
import { signWebhookBody } from "../src/shared/upstream/webhook-signature.js";
import { isAuthentic } from "../src/services/sync/webhooks/verify-signature.js";
import { openDatabase, type Database } from "../src/shared/db/database.js";
import { dropSchemas } from "../src/shared/db/pg-schemas.js";
import { cpuPerRequest, startFloor, type Floor } from "./floors.js";
import {
  buildOnce,
  DEMO_ORG,
  demoToken,
  freePort,
  machine,
  median,
  memoryOf,
  MemoryReport,
  option,
  productionNodeFlags,
  serveChild,
  waitHealthy,
} from "./lib.js";

const SECRET = "bench-assessment-webhook-secret";
const API_KEY = "bench-assessment-api-key";
const RECEIVER = "/api/v1/webhooks/upstream/assessment-order-received";
const INLINE_RECEIVER = "/api/v1/webhooks/upstream/inline-assessment-order-received";
const ACCEPTED = "accepted: candidate and interview created";

type Answer = { status: number; body: string; sentAt: number; ms: number };
type Order = { id: string; job: string; seq: number; inline: boolean };
type Stack = {
  proxy: string;
  api: string;
  sandbox: string;
  token: string;
  integrationId: string;
  templateId: string;
  db: Database;
};

/** One POST through `pool`: its status, body, when it was sent and how long until the whole answer. */
async function post(pool: Pool, path: string, body: string, headers: Record<string, string>): Promise<Answer> {
  const sentAt = performance.now();
  const res = await pool.request({ method: "POST", path, body, headers: { "content-type": "application/json", ...headers } });
  const text = await res.body.text();
  return { status: res.statusCode, body: text, sentAt, ms: performance.now() - sentAt };
}

/** The upstream's `assessment:order-received` (or inline) event for `o`, as the SDK's payload models shape it. */
function orderBody(s: Pick<Stack, "integrationId" | "templateId">, o: Order): string {
  return JSON.stringify({
    id: `evt-${o.id}`,
    type: o.inline ? "inline-assessment:order-received" : "assessment:order-received",
    data: {
      id: o.id,
      package_id: s.templateId,
      status: "OPEN",
      integration_id: s.integrationId,
      candidate: {
        remote_id: `cand-${o.id}`,
        email: `candidate.${o.id}@example.test`,
        first_name: "Bench",
        last_name: `Candidate ${o.seq}`,
        phone: "+1 555 0100",
      },
      application: { remote_id: `app-${o.id}` },
      job: {
        remote_id: o.job,
        name: `Bench job ${o.job}`,
        job_code: null,
        description: "A job whose applicants were sent an interview from the ATS.",
        location: { city: "Berlin", country: "DE" },
        hiring_team: [{ remote_id: "hm-1", email: "hiring.manager@example.test", hiring_team_roles: ["HIRING_MANAGER"] }],
      },
    },
  });
}

const signed = (body: string) => ({ "x-kombo-signature": signWebhookBody(body, SECRET) });

/** Sends every item with at most `connections` in flight; the answers in the items' order and the wall time. */
async function atOnce<T>(
  items: T[],
  connections: number,
  send: (item: T) => Promise<Answer>,
): Promise<{ answers: Answer[]; seconds: number }> {
  const answers: Answer[] = new Array(items.length);
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(connections, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        answers[i] = await send(items[i]!);
      }
    }),
  );
  return { answers, seconds: (performance.now() - t0) / 1000 };
}

/** Sends `items` at `rate` per second (each when due, whether or not the one before was answered); their answers. */
async function paced<T>(items: T[], rate: number, send: (item: T) => Promise<Answer>): Promise<Answer[]> {
  const start = performance.now();
  const calls: Promise<Answer>[] = [];
  for (const [i, item] of items.entries()) {
    await new Promise((r) => setTimeout(r, Math.max(0, start + (i * 1000) / rate - performance.now())));
    calls.push(send(item));
  }
  return Promise.all(calls);
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * p))] ?? Number.NaN;
};

/** Throws unless every answer is a 200 (the floor's, or an accepted order's body). */
function expectAccepted(scenario: string, answers: Answer[], kind: "floor" | "order" | "inline"): void {
  for (const a of answers) {
    let ok = a.status === 200;
    if (ok && kind !== "floor") {
      const body = JSON.parse(a.body) as { received?: boolean; processed?: boolean; assessment_url?: unknown };
      ok = kind === "inline" ? typeof body.assessment_url === "string" : body.received === true && body.processed === true;
    }
    if (!ok) throw new Error(`${scenario}: expected 200 with the order accepted, got ${a.status} ${a.body.slice(0, 300)}`);
  }
}

/**
 * Fails unless each order became exactly one accepted order record and one candidate carrying it,
 * with an interview `not_started` and its link; the links by order id.
 */
async function checkOrders(s: Stack, scenario: string, ids: string[]): Promise<Map<string, string>> {
  const candidates = await s.db.query<{ order_id: string; n: number; link: string | null; status: string | null }>(
    `select c.upstream_assessment_order_id as order_id, count(*) over (partition by c.upstream_assessment_order_id)::int as n,
            i.interview_link as link, i.status
       from candidates c left join interviews i on i.candidate_id = c.id
      where c.organization_id = $1 and c.upstream_assessment_order_id = any($2::text[])`,
    [DEMO_ORG, ids],
  );
  const records = await s.db.query<{ order_id: string; candidate_id: string | null }>(
    "select order_id, candidate_id from assessment_orders where integration_id = $1 and order_id = any($2::text[]) and status = 'accepted'",
    [s.integrationId, ids],
  );
  const links = new Map(candidates.map((c) => [c.order_id, c.link ?? ""]));
  const doubled = candidates.filter((c) => c.n !== 1).length;
  const withoutLink = candidates.filter((c) => !c.link || c.status !== "not_started").length;
  const recorded = new Set(records.filter((r) => r.candidate_id).map((r) => r.order_id));
  const lost = ids.filter((id) => !links.has(id) || !recorded.has(id)).length;
  if (lost || doubled || withoutLink || records.length !== ids.length) {
    throw new Error(
      `${scenario}: of ${ids.length} orders, ${lost} without a candidate or an accepted record, ${doubled} candidates doubled, ` +
        `${withoutLink} without an interview link not_started, ${records.length} order records`,
    );
  }
  return links;
}

type BurstRun = {
  seconds: number;
  ordersPerSecond: number;
  cpuUs: number;
  p50: number;
  p99: number;
  accepted: number;
  duplicates: number;
  candidates: number;
};

/**
 * `orders` new orders over `jobs` new jobs, with `duplicates` of them sent again among them (each
 * a few places after its first), all at once through `connections`: every answer a 200, exactly
 * one "accepted" per order, the rest answered as duplicates, and the database holding one
 * candidate with its link per order.
 */
async function burst(
  s: Stack,
  pool: Pool,
  pid: number | undefined,
  o: { tag: string; orders: number; duplicates: number; jobs: number; connections: number },
): Promise<BurstRun> {
  const orders: Order[] = Array.from({ length: o.orders }, (_, seq) => ({
    id: `ord-${o.tag}-${seq}`,
    job: `job-${o.tag}-${seq % o.jobs}`,
    seq,
    inline: false,
  }));
  const sends = orders.map((order) => ({ order, body: orderBody(s, order) }));
  const every = Math.max(1, Math.floor(o.orders / Math.max(1, o.duplicates)));
  for (let k = o.duplicates - 1; k >= 0; k--) {
    // The second delivery goes a few places after the first, so the two are often in flight together.
    const first = sends[k * every]!;
    sends.splice(Math.min(sends.length, k * every + 1 + (k % 7)), 0, first);
  }
  const { result, cpuUs } = await cpuPerRequest(
    [pid],
    () => atOnce(sends, o.connections, (x) => post(pool, RECEIVER, x.body, signed(x.body))),
    () => o.orders,
  );
  expectAccepted(`burst ${o.tag}`, result.answers, "order");
  const messages = result.answers.map((a) => (JSON.parse(a.body) as { message: string }).message);
  const accepted = messages.filter((m) => m === ACCEPTED).length;
  const duplicates = messages.filter((m) => m.startsWith("duplicate delivery")).length;
  if (accepted !== o.orders || duplicates !== o.duplicates) {
    throw new Error(
      `burst ${o.tag}: ${accepted} orders accepted (expected ${o.orders}), ${duplicates} answered as duplicates (expected ${o.duplicates})`,
    );
  }
  const links = await checkOrders(
    s,
    `burst ${o.tag}`,
    orders.map((x) => x.id),
  );
  const ms = result.answers.map((a) => a.ms);
  return {
    seconds: result.seconds,
    ordersPerSecond: o.orders / result.seconds,
    cpuUs,
    p50: pct(ms, 0.5),
    p99: pct(ms, 0.99),
    accepted,
    duplicates,
    candidates: links.size,
  };
}

/** `count` orders (inline or not) sent at `rate`/s: each answer's time, checked against the database. */
async function steadyOrders(s: Stack, pool: Pool, tag: string, count: number, rate: number, inline: boolean): Promise<number[]> {
  const orders: Order[] = Array.from({ length: count }, (_, seq) => ({ id: `ord-${tag}-${seq}`, job: `job-${tag}`, seq, inline }));
  const answers = await paced(orders, rate, (order) => {
    const body = orderBody(s, order);
    return post(pool, inline ? INLINE_RECEIVER : RECEIVER, body, signed(body));
  });
  expectAccepted(tag, answers, inline ? "inline" : "order");
  const links = await checkOrders(
    s,
    tag,
    orders.map((x) => x.id),
  );
  if (inline) {
    for (const [i, a] of answers.entries()) {
      const url = (JSON.parse(a.body) as { assessment_url: string }).assessment_url;
      if (url !== links.get(orders[i]!.id))
        throw new Error(`${tag}: order ${orders[i]!.id} answered ${url}, not its candidate's interview link`);
    }
  } else if (answers.some((a) => (JSON.parse(a.body) as { message: string }).message !== ACCEPTED)) {
    throw new Error(`${tag}: a new order was answered as a duplicate`);
  }
  return answers.map((a) => a.ms);
}

/** The HMAC verification rate of an order's body, as the receiver checks it (isAuthentic). */
function verificationsPerSecond(s: Stack, n: number): number {
  const raw = Buffer.from(orderBody(s, { id: "ord-hmac", job: "job-hmac", seq: 0, inline: false }));
  const signature = signWebhookBody(raw, SECRET);
  const t = performance.now();
  for (let i = 0; i < n; i++) if (!isAuthentic(raw, { signature }, SECRET)) throw new Error("floor: the signature did not verify");
  return n / ((performance.now() - t) / 1000);
}

/** A JSON call; throws unless it answers `status`. */
async function call<T>(url: string, init: { method?: string; token?: string; body?: unknown } = {}, status = 200): Promise<T> {
  const res = await fetch(url, {
    method: init.method ?? "GET",
    headers: {
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      ...(init.body !== undefined ? { "content-type": "application/json" } : {}),
    },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  const text = await res.text();
  if (res.status !== status) throw new Error(`${init.method ?? "GET"} ${url}: expected ${status}, got ${res.status} ${text.slice(0, 300)}`);
  return (text ? JSON.parse(text) : null) as T;
}

/** Polls `probe` (every 100 ms) until it answers true; throws after `timeoutMs` naming what was awaited. */
async function until(what: string, probe: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * The customer's set-up: an ASSESSMENT integration of the demo organisation made in the sandbox
 * (the proxy records it from the integration-created webhook), then a template position made
 * through the API, which Hirebridge publishes to it as a package (seen in the sandbox).
 */
async function customer(
  urls: { proxy: string; api: string; sandbox: string },
  token: string,
): Promise<{ integrationId: string; templateId: string }> {
  const created = await call<{ id: string }>(
    `${urls.sandbox}/sandbox/integrations`,
    { method: "POST", body: { category: "ASSESSMENT", org_id: DEMO_ORG } },
    201,
  );
  const integrationId = created.id;
  const enc = encodeURIComponent(integrationId);
  await until("the integration recorded by the proxy", async () => {
    const res = await fetch(`${urls.proxy}/api/v1/integrations/${enc}/summary`, { headers: { authorization: `Bearer ${token}` } });
    await res.arrayBuffer();
    return res.status === 200;
  });
  const template = await call<{ id: string; state: string }>(`${urls.api}/api/v1/org/${DEMO_ORG}/position`, {
    method: "POST",
    token,
    body: {
      name: "Bench: AI video interview",
      state: "template",
      role_description: "Structured interview on backend systems",
      min_score: 60,
      accepted_languages: ["en"],
    },
  });
  if (template.state !== "template") throw new Error(`the template position came back in state ${template.state}`);
  await until("the template published to the integration as a package", async () => {
    const listed = await call<{ packages: { id: string }[] }>(`${urls.sandbox}/sandbox/integrations/${enc}/assessment-packages`);
    return listed.packages.some((p) => p.id === template.id);
  });
  return { integrationId, templateId: template.id };
}

type Settings = {
  smoke: boolean;
  rounds: number;
  orders: number;
  duplicates: number;
  jobs: number;
  connections: number;
  rate: number;
  steady: number;
  inline: number;
};

function settingsOf(args: string[]): Settings {
  const smoke = args.includes("--smoke");
  const num = (name: string, normal: number, short: number) => Number(option(args, name, String(smoke ? short : normal)));
  const orders = num("orders", 1000, 50);
  return {
    smoke,
    rounds: num("rounds", 3, 1),
    orders,
    duplicates: Math.min(orders, num("duplicates", 100, 10)),
    jobs: num("jobs", 1, 1),
    connections: num("connections", 50, 50),
    rate: num("rate", 20, 20),
    steady: num("steady", 10, 2),
    inline: num("inline", 20, 5),
  };
}

/** Both services as production runs them, each in its own process, on a fresh schema. */
async function startServices(url: string, schema: string, dataDir: string) {
  const [authPort, apiPort, sandboxPort, proxyPort] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
  const env = {
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    DATABASE_URL: url,
    DATABASE_SCHEMA: schema,
    AUTH_PORT: String(authPort),
    API_PORT: String(apiPort),
    SANDBOX_PORT: String(sandboxPort),
    PROXY_PORT: String(proxyPort),
    UPSTREAM_API_KEY: API_KEY,
    UPSTREAM_WEBHOOK_SECRET: SECRET,
    // One benchmark caller is far above any per-caller limit; the limits are not what is measured.
    RATE_LIMIT_PER_MINUTE: "0",
    RATE_LIMIT_ORG_PER_MINUTE: "0",
    TOKEN_RATE_LIMIT_PER_MINUTE: "0",
  };
  const flags = productionNodeFlags();
  const core = serveChild(["token", "api", "sandbox"], env, flags, { compiled: true });
  const proxy = serveChild(["proxy"], env, flags, { compiled: true });
  const urls = {
    auth: `http://127.0.0.1:${authPort}`,
    api: `http://127.0.0.1:${apiPort}`,
    sandbox: `http://127.0.0.1:${sandboxPort}`,
    proxy: `http://127.0.0.1:${proxyPort}`,
  };
  return { core, proxy, urls };
}

export async function main(args: string[]): Promise<void> {
  const set = settingsOf(args);
  buildOnce();
  const url = process.env["BENCH_DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";
  const schema = `bench_assess_${randomBytes(4).toString("hex")}`;
  const dataDir = mkdtempSync(join(tmpdir(), "hirebridge-bench-assessments-"));
  const run = randomBytes(3).toString("hex");
  const { core, proxy, urls } = await startServices(url, schema, dataDir);
  const pools: Pool[] = [];
  let floor: Floor | undefined;
  let db: Database | undefined;
  try {
    await waitHealthy(`${urls.auth}/healthz`, core.child);
    await waitHealthy(`${urls.api}/healthz`, core.child);
    await waitHealthy(`${urls.sandbox}/healthz`, core.child);
    await waitHealthy(`${urls.proxy}/healthz`, proxy.child);
    const memory = new MemoryReport();
    memory.idle("serve proxy (postgres): the receivers", proxy.child.pid);
    memory.idle("serve token api sandbox (postgres)", core.child.pid);
    const token = await demoToken(`${urls.auth}/realms/hirebridge`);
    db = await openDatabase({ url, schema, poolSize: 2 });
    const s: Stack = { ...urls, token, db, ...(await customer(urls, token)) };
    floor = await startFloor("http+pg", { databaseUrl: url });
    const toProxy = new Pool(urls.proxy, { connections: set.connections });
    const toFloor = new Pool(floor.url, { connections: set.connections });
    pools.push(toProxy, toFloor);
    const floorBody = orderBody(s, { id: "ord-floor", job: "job-floor", seq: 0, inline: false });
    const floorSend = () => post(toFloor, RECEIVER, floorBody, signed(floorBody));
    const sends = set.orders + set.duplicates;

    // Warm-up: code paths, connections and pools of the receiver and of the floor.
    await burst(s, toProxy, proxy.child.pid, {
      tag: `${run}-warm`,
      orders: Math.min(set.orders, 200),
      duplicates: 0,
      jobs: set.jobs,
      connections: set.connections,
    });
    expectAccepted("floor warm-up", (await atOnce(Array.from({ length: sends }), set.connections, floorSend)).answers, "floor");

    const hmac: number[] = [];
    const floors: { perSecond: number; cpuUs: number; p50: number; p99: number }[] = [];
    const bursts: BurstRun[] = [];
    for (let r = 0; r < set.rounds; r++) {
      hmac.push(verificationsPerSecond(s, set.smoke ? 20_000 : 200_000));
      const f = await cpuPerRequest(
        [floor.pid],
        () => atOnce(Array.from({ length: sends }), set.connections, floorSend),
        () => sends,
      );
      expectAccepted("floor", f.result.answers, "floor");
      const fms = f.result.answers.map((a) => a.ms);
      floors.push({ perSecond: sends / f.result.seconds, cpuUs: f.cpuUs, p50: pct(fms, 0.5), p99: pct(fms, 0.99) });
      bursts.push(await burst(s, toProxy, proxy.child.pid, { tag: `${run}-r${r}`, ...set }));
    }
    const afterBursts = memoryOf(proxy.child.pid);
    const steadyCount = Math.max(1, Math.round(set.rate * set.steady));
    const floorSteady = await paced(Array.from({ length: steadyCount }), set.rate, floorSend);
    expectAccepted("floor at the steady rate", floorSteady, "floor");
    const steady = await steadyOrders(s, toProxy, `${run}-steady`, steadyCount, set.rate, false);
    const inline = await steadyOrders(s, toProxy, `${run}-inline`, set.inline, set.rate, true);
    memory.peaks();

    const med = <K extends keyof BurstRun>(k: K) => median(bursts.map((b) => b[k]));
    const fmed = (k: "perSecond" | "cpuUs" | "p50" | "p99") => median(floors.map((f) => f[k]));
    const range = (k: "accepted" | "duplicates" | "candidates") => {
      const [lo, hi] = [Math.min(...bursts.map((b) => b[k])), Math.max(...bursts.map((b) => b[k]))];
      return lo === hi ? String(lo) : `${lo}–${hi}`;
    };
    const mark = (ok: boolean) => (ok ? "✓" : "✗");
    const ms = (x: number) => x.toFixed(1);
    const lines = [
      "",
      `Machine: ${machine()}. Command: npm run bench -- assessments ${args.join(" ")}`,
      `\`serve proxy\` (the order receivers) and \`serve token api sandbox\`, each its own process, compiled, production's Node flags, Postgres; ${set.rounds} round(s), medians. ` +
        "Targets: webhook → candidate with its interview link p99 < 1 s with nothing queued; every order of the burst an interview, none lost or doubled; inline answer < 2 s.",
      "",
      `| scenario (${set.connections} connections) | per s | wall s | p50 ms | p99 ms | CPU µs per request, serving process | ratio to floor |`,
      "|---|---:|---:|---:|---:|---:|---:|",
      `| floor: HMAC-SHA256 verifications of an order's body (this process) | ${median(hmac).toFixed(0)} | | | | | |`,
      `| floor: node:http + pg \`select 1\`, the same ${sends.toLocaleString("en")} POSTs at once | ${fmed("perSecond").toFixed(0)} | ${(sends / fmed("perSecond")).toFixed(2)} | ${ms(fmed("p50"))} | ${ms(fmed("p99"))} | ${fmed("cpuUs").toFixed(0)} | 1.00 |`,
      `| ${set.orders.toLocaleString("en")} orders + ${set.duplicates} duplicates at once, ${set.jobs} job(s): orders/s | ${med("ordersPerSecond").toFixed(0)} | ${med("seconds").toFixed(2)} | ${ms(med("p50"))} | ${ms(med("p99"))} | ${med("cpuUs").toFixed(0)} | ${(med("ordersPerSecond") / fmed("perSecond")).toFixed(2)} |`,
      "",
      "| burst, every round | expected | found |",
      "|---|---:|---:|",
      `| orders answered 200 "accepted: candidate and interview created" | ${set.orders} | ${range("accepted")} |`,
      `| second deliveries answered 200 as duplicates | ${set.duplicates} | ${range("duplicates")} |`,
      `| candidates, each with its order and an interview link (none lost, none doubled) | ${set.orders} | ${range("candidates")} |`,
      "",
      `| at ${set.rate}/s, nothing queued | requests | p50 ms | p99 ms | max ms | target |`,
      "|---|---:|---:|---:|---:|---|",
      `| floor: node:http + pg \`select 1\` | ${floorSteady.length} | ${ms(
        pct(
          floorSteady.map((a) => a.ms),
          0.5,
        ),
      )} | ${ms(
        pct(
          floorSteady.map((a) => a.ms),
          0.99,
        ),
      )} | ${ms(Math.max(...floorSteady.map((a) => a.ms)))} | |`,
      `| order webhook → candidate with its interview link (the 200) | ${steady.length} | ${ms(pct(steady, 0.5))} | ${ms(pct(steady, 0.99))} | ${ms(Math.max(...steady))} | p99 < 1,000 ${mark(pct(steady, 0.99) < 1000)} |`,
      `| inline order → \`assessment_url\` | ${inline.length} | ${ms(pct(inline, 0.5))} | ${ms(pct(inline, 0.99))} | ${ms(Math.max(...inline))} | < 2,000 ${mark(Math.max(...inline) < 2000)} |`,
      "",
      ...memory.lines(),
      "",
      `RSS of the receiving process after the bursts: ${afterBursts ? afterBursts.rssMb.toFixed(0) : "n/a"} MB.`,
    ];
    process.stdout.write(`${lines.join("\n")}\n`);
  } finally {
    await Promise.all(pools.map((p) => p.close()));
    await floor?.stop();
    await db?.close();
    await proxy.stop();
    await core.stop();
    await dropSchemas(url, schema);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
