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
 *
 * And one anchor of the same work as our hot paths, written with the libraries alone and nothing of
 * Hirebridge, as directly as a careful hand would, so that what our code costs beyond the
 * contract's own work is told apart from what the work itself costs on Fastify:
 * - `fastify+contract`: on every request, what the spec and the run contract ask of ours: a
 *   request id (the caller's or a UUID) echoed back; the bearer token verified (jose, against the
 *   token service's JWKS, issuer and audience; a token verified before is found in a Map); the
 *   security and CORS headers of every answer; a request counter and a latency histogram by route
 *   and status (prom-client, each series bound once). Two routes: `GET /api/v1/org_id` answers the
 *   caller's org_id (beside `GET /org_id`), and `GET /api/v1/ats/jobs` (beside the proxy) also
 *   validates its query with Fastify's Ajv under our options (coercion, all errors, no extra
 *   fields), checks the integration against the caller's org (a Map) and forwards as
 *   `fastify+undici` does, with the request id and the integration sent upstream; and
 *   `GET /api/v1/org/:org_id/position/:position_id` (beside GET one position) validates its
 *   params (uuid), checks the org, reads the row with one prepared `select` on a pg pool of 10 (the
 *   same columns and where clause as ours, in our API's schema) and answers it in the API's shape.
 *   No access log: the benches run our services with logging off too.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { dropSchemas } from "../src/shared/db/pg-schemas.js";
import { EXPOSED_HEADERS, SECURITY_HEADERS } from "../src/shared/http/protection.js";
import { cpuSeconds, freePort, profileFlags, ROOT, stopper, waitHealthy } from "./lib.js";

export type FloorKind = "http" | "http+pg" | "http+insert" | "http+undici" | "fastify" | "fastify+undici" | "fastify+contract";

export const FLOOR_NAMES: Record<FloorKind, string> = {
  http: "node:http (HTTP floor)",
  "http+pg": "node:http + pg `select 1` (HTTP+DB floor)",
  "http+insert": "node:http + one committed INSERT (write floor)",
  "http+undici": "node:http + undici (proxy floor)",
  fastify: "bare Fastify (framework anchor)",
  "fastify+undici": "bare Fastify + undici (framework anchor)",
  "fastify+contract": "Fastify + our per-request contract, libraries only (contract anchor)",
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

/** The security and CORS headers our hop adds to every answer (the same constants). */
const ANSWER_HEADERS = JSON.stringify({ ...SECURITY_HEADERS, vary: "Origin", "access-control-expose-headers": EXPOSED_HEADERS });

/** The contract anchor (see above): upstream and API key (may be empty), the token service's realm URL. */
const CONTRACT = `
const [port, arg1, arg2, realm, dbUrl, dbSchema] = process.argv.slice(1);
const pool = arg1 ? new (require("undici").Pool)(arg1, { connections: 256 }) : undefined;
const db = dbUrl ? new (require("pg").Pool)({ connectionString: dbUrl, max: 10, options: "-c search_path=" + dbSchema }) : undefined;
const { randomUUID } = require("node:crypto");
const jose = require("jose");
const prom = require("prom-client");
const app = require("fastify")({
  genReqId: (req) => { const id = req.headers["x-request-id"]; return typeof id === "string" && /^[A-Za-z0-9._:-]{1,128}$/.test(id) ? id : randomUUID(); },
  ajv: { customOptions: { removeAdditional: false, coerceTypes: "array", useDefaults: true, allErrors: true } },
});
app.get("/healthz", async () => ({ status: "ok" }));
const jwks = jose.createRemoteJWKSet(new URL(realm + "/protocol/openid-connect/certs"));
const verified = new Map();
const owners = new Map();
const HEADERS = ${ANSWER_HEADERS};
const registry = new prom.Registry();
const requests = new prom.Counter({ name: "requests_total", help: "h", labelNames: ["method", "route", "status"], registers: [registry] });
const duration = new prom.Histogram({ name: "duration_seconds", help: "h", labelNames: ["method", "route", "status"], registers: [registry] });
const refuse = (status, detail) => Object.assign(new Error(detail), { statusCode: status });
/** A route's onResponse hook: its counter and histogram series bound once per method and status. */
const metered = (route) => {
  const series = new Map();
  return (req, reply, done) => {
    const key = req.method + " " + reply.statusCode;
    let pair = series.get(key);
    if (!pair) { const labels = [req.method, route, String(reply.statusCode)]; pair = [requests.labels(...labels), duration.labels(...labels)]; series.set(key, pair); }
    pair[0].inc();
    pair[1].observe(reply.elapsedTime / 1000);
    done();
  };
};
const uuid = { type: "string", format: "uuid" };
const positionParams = { type: "object", properties: { org_id: uuid, position_id: uuid }, required: ["org_id", "position_id"] };
const FIND_POSITION = "select id, name, state, department, location, min_score, role_description, position_calender_link, created_at, accepted_languages, updated_at, agent_id, candidate_stage, passed_stage, rejected_stage, needs_reviewed_stage, auto_update_stages, upstream_job_id_id, upstream_integration_id from positions where organization_id = $1::uuid and id = $2::uuid";
const toPosition = (r) => {
  const out = { id: r.id, name: r.name, state: r.state, department: r.department, location: r.location };
  if (r.min_score !== null) out.min_score = r.min_score;
  Object.assign(out, { role_description: r.role_description, position_calender_link: r.position_calender_link, created_at: r.created_at.toISOString(), accepted_languages: r.accepted_languages, updated_at: r.updated_at.toISOString() });
  if (r.agent_id !== null) out.agent_id = r.agent_id;
  return Object.assign(out, { candidate_stage: r.candidate_stage, passed_stage: r.passed_stage, rejected_stage: r.rejected_stage, needs_reviewed_stage: r.needs_reviewed_stage, auto_update_stages: r.auto_update_stages, upstream_job_id_id: r.upstream_job_id_id, upstream_integration_id: r.upstream_integration_id });
};
const querystring = {
  type: "object",
  properties: { integration_id: { type: "string", minLength: 1 }, page_size: { type: "integer", minimum: 1, maximum: 250 }, cursor: { type: "string" } },
  required: ["integration_id"],
  additionalProperties: false,
};
app.register(async (api) => {
  api.addHook("onRequest", (req, reply, done) => {
    reply.header("x-request-id", req.id);
    reply.headers(HEADERS);
    const header = req.headers.authorization;
    const token = header && header.startsWith("Bearer ") ? header.slice(7) : undefined;
    if (!token) return done(refuse(401, "Not authenticated"));
    const known = verified.get(token);
    if (known) { req.principal = known; return done(); }
    jose.jwtVerify(token, jwks, { issuer: realm, audience: "hirebridge" }).then(
      ({ payload }) => { verified.set(token, payload); req.principal = payload; done(); },
      () => done(refuse(401, "Invalid token")),
    );
  });
  api.get("/org_id", { onResponse: metered("/api/v1/org_id") }, async (req) => ({ org_id: req.principal.org_id }));
  api.get("/org/:org_id/position/:position_id", { schema: { params: positionParams }, onResponse: metered("/api/v1/org/:org_id/position/:position_id") }, async (req, reply) => {
    const org = String(req.principal.org_id ?? "").toLowerCase();
    if (req.params.org_id.toLowerCase() !== org) return reply.code(403).send({ detail: "Not your organization" });
    const { rows } = await db.query({ name: "find_position", text: FIND_POSITION, values: [org, req.params.position_id] });
    if (!rows[0]) return reply.code(404).send({ detail: "Position not found" });
    return toPosition(rows[0]);
  });
  api.get("/ats/jobs", { schema: { querystring }, onResponse: metered("/api/v1/ats/jobs") }, (req, reply) => {
    const org = String(req.principal.org_id ?? "").toLowerCase();
    const id = req.query.integration_id;
    if (!owners.has(id)) owners.set(id, org); // the first caller adopts it, as create-link does
    if (owners.get(id) !== org) return reply.code(404).send({ detail: "Integration not found" });
    const q = new URLSearchParams();
    if (req.query.page_size !== undefined) q.set("page_size", String(req.query.page_size));
    if (req.query.cursor !== undefined) q.set("cursor", req.query.cursor);
    reply.hijack();
    pool.stream(
      { method: "GET", path: "/v1/ats/jobs?" + q, headers: { accept: "application/json", "user-agent": "anchor", "x-request-id": req.id, "x-integration-id": id, authorization: "Bearer " + arg2 } },
      ({ statusCode, headers }) => reply.raw.writeHead(statusCode, Object.assign(reply.getHeaders(), { "content-type": headers["content-type"], "content-length": headers["content-length"] })),
    ).catch(() => { if (!reply.raw.headersSent) reply.raw.writeHead(502); reply.raw.end(); });
  });
}, { prefix: "/api/v1" });
app.listen({ port: Number(port), host: "127.0.0.1" });
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
  "fastify+contract": CONTRACT,
};

export type FloorOptions = { databaseUrl?: string; schema?: string; upstream?: string; apiKey?: string; realm?: string };

/** What each kind cannot start without (the contract anchor's other options are per route). */
const NEEDS: Record<FloorKind, (keyof FloorOptions)[]> = {
  http: [],
  fastify: [],
  "http+pg": ["databaseUrl"],
  "http+insert": ["databaseUrl"],
  "http+undici": ["upstream"],
  "fastify+undici": ["upstream"],
  "fastify+contract": ["realm"],
};

export type Floor = { kind: FloorKind; name: string; url: string; pid: number | undefined; stop(): Promise<void> };

/**
 * Starts a floor (or an anchor) on a free port. `http+pg` and `http+insert` need `databaseUrl` (the
 * insert floor writes into a schema of its own, dropped by stop); `http+undici` and
 * `fastify+undici` need `upstream` and `apiKey`; `fastify+contract` needs the token service's `realm`,
 * `upstream` and `apiKey` for its proxied route, and `databaseUrl` and the API's `schema` for its
 * position route (it reads the positions the bench seeded through our API).
 */
export async function startFloor(kind: FloorKind, opts: FloorOptions = {}): Promise<Floor> {
  const port = await freePort();
  const schema = `bench_floor_${randomBytes(4).toString("hex")}`;
  for (const key of NEEDS[kind]) if (!opts[key]) throw new Error(`floor ${kind}: missing ${key}`);
  const args = {
    http: [],
    fastify: [],
    "http+pg": [opts.databaseUrl, schema],
    "http+insert": [opts.databaseUrl, schema],
    "http+undici": [opts.upstream, opts.apiKey],
    "fastify+undici": [opts.upstream, opts.apiKey],
    "fastify+contract": [opts.upstream, opts.apiKey, opts.realm, opts.databaseUrl, opts.schema],
  }[kind].map((a) => a ?? "");
  // With BENCH_CPU_PROF_DIR a floor writes a CPU profile as our hop does, to compare the two (Node
  // writes it on a normal exit only, hence the SIGTERM handler).
  const profiling = profileFlags();
  const script = profiling.length ? `process.on("SIGTERM", () => process.exit(0));${SCRIPTS[kind]}` : SCRIPTS[kind];
  const child = spawn(process.execPath, [...profiling, "-e", script, String(port), ...args], {
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
