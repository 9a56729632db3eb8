/**
 * Floors: the least a Node server can do for each kind of request, run in the same bench, with the
 * same load generator and connections as the row they anchor, so "ours / floor" compares our code
 * with no code at all on the machine of the moment (issue 32). Each floor is a child process of a
 * few lines (`node -e`), nothing of Hirebridge in it:
 * - `http`: node:http answering a small JSON object (the HTTP floor);
 * - `http+pg`: node:http + one `select 1` on a pg pool per request (the HTTP + DB floor);
 * - `http+insert`: node:http reading a JSON body + one committed `INSERT` (autocommit) of its fields
 *   into a table of its own per request (the write floor);
 * - `http+undici`: node:http in, undici's stream API out to the same upstream (the proxy floor).
 * A floor's CPU per request is read from /proc like a hop's, so the two are comparable.
 *
 * Two framework anchors sit between a floor and our hop: the same work inside a bare Fastify (the
 * version we run, default options, one route, no hooks, no schema), so a row's gap to its floor
 * splits into what the framework costs and what our code adds (issue 32's "floor of the same work
 * without our code"):
 * - `fastify`: the HTTP floor's answer from a Fastify route;
 * - `fastify+undici`: the proxy floor's forward from a Fastify route, written the way our proxy's
 *   hot path writes it (the reply hijacked, the upstream's status and headers written at once, the
 *   body streamed into the socket).
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { dropSchemas } from "../src/shared/db/pg-schemas.js";
import { cpuSeconds, freePort, ROOT, stopper, waitHealthy } from "./lib.js";

export type FloorKind = "http" | "http+pg" | "http+insert" | "http+undici" | "fastify" | "fastify+undici";

export const FLOOR_NAMES: Record<FloorKind, string> = {
  http: "node:http (HTTP floor)",
  "http+pg": "node:http + pg `select 1` (HTTP+DB floor)",
  "http+insert": "node:http + one committed INSERT (write floor)",
  "http+undici": "node:http + undici (proxy floor)",
  fastify: "bare Fastify (framework anchor)",
  "fastify+undici": "bare Fastify + undici (framework anchor)",
};

/** The framework anchors' start: a Fastify app on the port with the same /healthz as the floors. */
const FASTIFY_PRELUDE = `
const [port, arg1, arg2] = process.argv.slice(1);
const app = require("fastify")();
app.get("/healthz", async () => ({ status: "ok" }));
const listen = () => app.listen({ port: Number(port), host: "127.0.0.1" });
`;

const PRELUDE = `
const http = require("node:http");
const [port, arg1, arg2] = process.argv.slice(1);
const json = (res, status, body) => { const s = JSON.stringify(body); res.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(s) }); res.end(s); };
const serve = (handle) => http.createServer((req, res) => {
  if (req.method === "GET" && req.url === "/healthz") return json(res, 200, { status: "ok" });
  handle(req, res);
}).listen(Number(port), "127.0.0.1");
`;

/** What the HTTP floor and its anchor answer. */
const ORG_ID_ANSWER = `{ org_id: "6d3f1e2a-9b4c-4f7e-8a1d-2c5b7e9f0a13" }`;

/**
 * The proxy floor's forward, shared by its anchor: `req` in (node:http's), the same GET sent
 * upstream through undici's stream API with the API key, the answer's status, type and length
 * written at once and its body streamed into `res`.
 */
const FORWARD = `
const { Pool } = require("undici");
const pool = new Pool(arg1, { connections: 256 });
const forward = (req, res) =>
  pool.stream(
    { method: "GET", path: req.url, headers: { authorization: "Bearer " + arg2, "x-integration-id": req.headers["x-integration-id"] } },
    ({ statusCode, headers }) => res.writeHead(statusCode, { "content-type": headers["content-type"], "content-length": headers["content-length"] }),
  ).catch(() => { if (!res.headersSent) res.writeHead(502); res.end(); });
`;

const SCRIPTS: Record<FloorKind, string> = {
  http: `${PRELUDE}
serve((req, res) => json(res, 200, ${ORG_ID_ANSWER}));`,
  "http+pg": `${PRELUDE}
const pool = new (require("pg").Pool)({ connectionString: arg1, max: 10 });
serve((req, res) => pool.query("select 1 as one").then((r) => json(res, 200, r.rows[0]), () => json(res, 500, {})));`,
  "http+insert": `${PRELUDE}
const pool = new (require("pg").Pool)({ connectionString: arg1, max: 10 });
const table = arg2 + ".floor_candidates";
pool.query("create schema if not exists " + arg2).then(() => pool.query("create table if not exists " + table + " (id uuid primary key default gen_random_uuid(), name text not null, email text not null, phone text, language text, created_at timestamptz not null default now())"));
serve((req, res) => {
  let body = "";
  req.setEncoding("utf8");
  req.on("data", (d) => (body += d));
  req.on("end", () => {
    let c;
    try { c = JSON.parse(body); } catch { return json(res, 400, {}); }
    pool.query("insert into " + table + " (name, email, phone, language) values ($1, $2, $3, $4) returning id, created_at", [c.name, c.email, c.phone ?? null, c.language ?? null])
      .then((r) => json(res, 201, { ...c, ...r.rows[0] }), () => json(res, 500, {}));
  });
});`,
  "http+undici": `${PRELUDE}${FORWARD}
serve(forward);`,
  fastify: `${FASTIFY_PRELUDE}
app.get("/*", async () => (${ORG_ID_ANSWER}));
listen();`,
  "fastify+undici": `${FASTIFY_PRELUDE}${FORWARD}
app.get("/*", (req, reply) => {
  reply.hijack();
  forward(req.raw, reply.raw);
});
listen();`,
};

export type Floor = { kind: FloorKind; name: string; url: string; pid: number | undefined; stop(): Promise<void> };

/**
 * Starts a floor (or an anchor) on a free port. `http+pg` and `http+insert` need `databaseUrl` (the
 * insert floor writes into a schema of its own, dropped by stop); `http+undici` and
 * `fastify+undici` need `upstream` and `apiKey`.
 */
export async function startFloor(kind: FloorKind, opts: { databaseUrl?: string; upstream?: string; apiKey?: string } = {}): Promise<Floor> {
  const port = await freePort();
  const schema = `bench_floor_${randomBytes(4).toString("hex")}`;
  const proxying = kind === "http+undici" || kind === "fastify+undici";
  const args = proxying
    ? [opts.upstream ?? "", opts.apiKey ?? ""]
    : kind === "http" || kind === "fastify"
      ? []
      : [opts.databaseUrl ?? "", schema];
  if (args.length > 0 && !args[0]) throw new Error(`floor ${kind}: missing ${proxying ? "upstream" : "databaseUrl"}`);
  const child = spawn(process.execPath, ["-e", SCRIPTS[kind], String(port), ...args], {
    cwd: ROOT,
    env: { ...process.env, NODE_NO_WARNINGS: "1" },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const stop = stopper(child);
  await waitHealthy(`http://127.0.0.1:${port}/healthz`, child, 60_000);
  return {
    kind,
    name: FLOOR_NAMES[kind],
    url: `http://127.0.0.1:${port}`,
    pid: child.pid,
    async stop() {
      await stop();
      if (kind === "http+insert" && opts.databaseUrl) await dropSchemas(opts.databaseUrl, schema);
    },
  };
}

/** CPU µs per request of `pids` (from /proc) over `run`, whose result says how many requests it served. */
export async function cpuPerRequest<T>(
  pids: (number | undefined)[],
  run: () => Promise<T>,
  requests: (result: T) => number,
): Promise<{ result: T; cpuUs: number }> {
  const cpu = () => pids.reduce((sum: number, p) => sum + cpuSeconds(p), 0);
  const before = cpu();
  const result = await run();
  const n = requests(result);
  return { result, cpuUs: n > 0 ? ((cpu() - before) / n) * 1e6 : Number.NaN };
}
