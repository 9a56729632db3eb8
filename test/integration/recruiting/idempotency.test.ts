/**
 * Idempotent creates over real HTTP, on PGlite and Postgres: `POST` position and `POST` candidate
 * with an `Idempotency-Key` (draft-ietf-httpapi-idempotency-key-header). A repeat answers the first
 * answer and creates nothing; another body with the key is 422; a key still in flight is 409 (in
 * this process, and on Postgres from another instance through the key's advisory lock); keys are
 * per organisation and caller; the SDK's retry after a lost answer creates once, and so do the
 * CLI's creates, which go through it.
 */
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, test } from "node:test";
import { Hirebridge } from "../../../src/client/index.js";
import { recruitingOwnership } from "../../../src/runtime/wiring.js";
import { buildRecruitingApp } from "../../../src/services/recruiting/app.js";
import type { App } from "../../../src/shared/http/create-app.js";
import { startTestIdentity, type TestIdentity, type TestLogin } from "../../helpers/auth.js";
import { silentLogger, testConfig } from "../../helpers/config.js";
import { DB_KINDS, freshDatabase, untilWaitingForLock } from "../../helpers/db.js";
import { Cli } from "../cli/cli-harness.js";

type Answer = { status: number; headers: Headers; body: unknown };

for (const kind of DB_KINDS) {
  describe(`idempotent creates [${kind}]`, () => {
    let database: Awaited<ReturnType<typeof freshDatabase>>;
    let identity: TestIdentity;
    const apps: App[] = [];
    let api = "";
    let secondApi = "";

    const listen = async () => {
      const app = await buildRecruitingApp({
        config: testConfig(),
        database,
        logger: silentLogger(),
        verify: identity.verify,
        ownership: recruitingOwnership(database),
      });
      await app.listen({ host: "127.0.0.1", port: 0 });
      apps.push(app);
      return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1`;
    };

    before(async () => {
      database = await freshDatabase(kind);
      identity = await startTestIdentity(database);
      api = await listen();
      secondApi = await listen(); // another instance over the same database
    });
    after(async () => {
      for (const app of apps) await app.close();
      await identity?.close();
      await database?.dispose();
    });

    async function post(base: string, user: TestLogin, path: string, body: unknown, key?: string): Promise<Answer> {
      const res = await fetch(`${base}/org/${user.orgId}${path}`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${user.accessToken}`,
          "content-type": "application/json",
          ...(key === undefined ? {} : { "idempotency-key": key }),
        },
        body: JSON.stringify(body),
      });
      return { status: res.status, headers: res.headers, body: await res.json() };
    }
    const count = async (table: "positions" | "candidates" | "interviews", orgId: string) =>
      (await database.query<{ n: number }>(`select count(*)::int as n from ${table} where organization_id = $1`, [orgId]))[0]!.n;

    test("a position posted twice with one key is created once, and the repeat answers the first answer", async () => {
      const user = await identity.login();
      const first = await post(api, user, "/position", { name: "Backend Engineer", min_score: 70 }, "create-backend-1");
      assert.equal(first.status, 200, JSON.stringify(first.body));
      const again = await post(api, user, "/position", { min_score: 70, name: "Backend Engineer" }, "create-backend-1");
      assert.deepEqual([again.status, again.body], [200, first.body], "same status and body (key order does not matter)");
      const elsewhere = await post(secondApi, user, "/position", { name: "Backend Engineer", min_score: 70 }, '"create-backend-1"');
      assert.deepEqual([elsewhere.status, elsewhere.body], [200, first.body], "another instance, the draft's quoted key");
      assert.equal(await count("positions", user.orgId), 1);
      const list = await fetch(`${api}/org/${user.orgId}/position`, { headers: { authorization: `Bearer ${user.accessToken}` } });
      assert.deepEqual(((await list.json()) as { items: unknown[] }).items, [first.body]);
    });

    test("the same key with another body is 422 naming the header, and creates nothing", async () => {
      const user = await identity.login();
      assert.equal((await post(api, user, "/position", { name: "Designer" }, "k-1")).status, 200);
      const other = await post(api, user, "/position", { name: "Product Designer" }, "k-1");
      assert.equal(other.status, 422);
      const { detail } = other.body as { detail: { loc: unknown[]; msg: string; type: string }[] };
      assert.deepEqual(
        detail.map((d) => d.loc),
        [["header", "idempotency-key"]],
      );
      assert.match(detail[0]!.msg, /different request/);
      assert.equal(await count("positions", user.orgId), 1);
    });

    test("keys are per organisation and per caller: the same key elsewhere is another request", async () => {
      const a = await identity.login();
      const b = await identity.login();
      const colleague = await identity.login({ orgId: a.orgId });
      const inA = await post(api, a, "/position", { name: "Analyst" }, "shared-key");
      const inB = await post(api, b, "/position", { name: "Analyst, other org" }, "shared-key");
      const byColleague = await post(api, colleague, "/position", { name: "Analyst" }, "shared-key");
      for (const r of [inA, inB, byColleague]) assert.equal(r.status, 200, JSON.stringify(r.body));
      const ids = [inA, inB, byColleague].map((r) => (r.body as { id: string }).id);
      assert.equal(new Set(ids).size, 3, "three positions");
      assert.deepEqual([await count("positions", a.orgId), await count("positions", b.orgId)], [2, 1]);
    });

    test("a candidate posted twice with one key is created once, with one interview", async () => {
      const user = await identity.login();
      const position = (await post(api, user, "/position", { name: "Support" })).body as { id: string };
      const body = { name: "Ada Lovelace", email: "ada@example.com", phone: "+44 20 7946 0000", language: "en" };
      const first = await post(api, user, `/positions/${position.id}/`, body, "cand-1");
      assert.equal(first.status, 200, JSON.stringify(first.body));
      const again = await post(secondApi, user, `/positions/${position.id}/`, body, "cand-1");
      assert.deepEqual([again.status, again.body], [200, first.body]);
      assert.deepEqual([await count("candidates", user.orgId), await count("interviews", user.orgId)], [1, 1]);
      const changed = await post(api, user, `/positions/${position.id}/`, { ...body, language: "fr" }, "cand-1");
      assert.equal(changed.status, 422);
      // Without a key, the same body is a new request: the email is taken, 409 as before.
      assert.equal((await post(api, user, `/positions/${position.id}/`, body)).status, 409);
      // A refused create stores no answer: after the 404 the key is still free.
      const missing = await post(api, user, `/positions/${crypto.randomUUID()}/`, body, "cand-2");
      assert.equal(missing.status, 404);
      const other = await post(api, user, `/positions/${position.id}/`, { ...body, email: "grace@example.com" }, "cand-2");
      assert.equal(other.status, 200);
      assert.equal(await count("candidates", user.orgId), 2);
    });

    test("a key whose first request is still running answers 409 with Retry-After; then the first answer", async () => {
      const user = await identity.login();
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      // Hold the positions table (Postgres: the first request waits inside its transaction, key
      // locked; PGlite: its one connection, so the first request waits for its transaction).
      const holding = database.rawTransaction(async (exec) => {
        await exec("lock table positions in exclusive mode");
        await held;
      });
      await sleep(100);
      const first = post(api, user, "/position", { name: "Slow" }, "slow-1");
      if (kind === "postgres") assert.ok(await untilWaitingForLock(database.query, "positions"), "the first request waits for the lock");
      else await sleep(300);
      const here = await post(api, user, "/position", { name: "Slow" }, "slow-1");
      assert.equal(here.status, 409, JSON.stringify(here.body));
      assert.equal(here.headers.get("retry-after"), "1");
      assert.match((here.body as { detail: string }).detail, /still being processed/);
      if (kind === "postgres") {
        // Another instance does not know this process's requests: the key's advisory lock answers.
        const there = await post(secondApi, user, "/position", { name: "Slow" }, "slow-1");
        assert.equal(there.status, 409, JSON.stringify(there.body));
      }
      release();
      await holding;
      const done = await first;
      assert.equal(done.status, 200);
      const later = await post(api, user, "/position", { name: "Slow" }, "slow-1");
      assert.deepEqual([later.status, later.body], [200, done.body]);
      assert.equal(await count("positions", user.orgId), 1);
    });

    test("the OpenAPI document declares the header on both creates", async () => {
      const doc = (await (await fetch(`${api}/openapi.json`)).json()) as {
        paths: Record<string, Record<string, { parameters?: { in: string; name: string; required?: boolean }[] }>>;
      };
      for (const path of ["/api/v1/org/{org_id}/position", "/api/v1/org/{org_id}/positions/{position_id}/"]) {
        const header = doc.paths[path]?.["post"]?.parameters?.find((p) => p.in === "header" && p.name === "idempotency-key");
        assert.ok(header, `${path} declares Idempotency-Key`);
        assert.notEqual(header.required, true);
      }
    });

    test("a browser may send the header: the CORS preflight allows it", async () => {
      const user = await identity.login();
      const preflight = await fetch(`${api}/org/${user.orgId}/position`, {
        method: "OPTIONS",
        headers: {
          origin: "https://app.example.test",
          "access-control-request-method": "POST",
          "access-control-request-headers": "authorization, content-type, idempotency-key",
        },
      });
      assert.equal(preflight.status, 204);
      assert.match(String(preflight.headers.get("access-control-allow-headers")), /idempotency-key/);
    });

    test("the SDK retries a create whose answer was lost with the same key: one position, one candidate", async () => {
      const user = await identity.login();
      const sent: { url: string; key: string | null }[] = [];
      let dropped = 0;
      // The first answer of each create reaches this process and is then lost, as when a
      // connection drops after the server committed.
      const lossy = async (input: string, init: RequestInit) => {
        const res = await fetch(input, init);
        if (init.method !== "POST" || !input.startsWith(api)) return res;
        sent.push({ url: input, key: new Headers(init.headers).get("idempotency-key") });
        if (sent.filter((s) => s.url === input).length > 1) return res;
        await res.arrayBuffer();
        dropped++;
        throw new TypeError("fetch failed: other side closed");
      };
      const hb = new Hirebridge({
        authUrl: identity.authUrl,
        apiUrl: api,
        orgId: user.orgId,
        credentials: { username: user.username, password: user.password },
        fetch: lossy,
      });
      const position = await hb.positions.create({ name: "Retried role" });
      const candidate = await hb.candidates.create(position.id, {
        name: "Grace Hopper",
        email: "grace@example.com",
        phone: "+1 555 0100",
        language: "en",
      });
      assert.equal(dropped, 2, "each create's first answer was lost");
      assert.equal(sent.length, 4, "each create was sent twice");
      assert.ok(sent[0]!.key && sent[0]!.key === sent[1]!.key, "the retry carries the first attempt's key");
      assert.ok(sent[2]!.key && sent[2]!.key === sent[3]!.key && sent[2]!.key !== sent[0]!.key, "one key per logical create");
      assert.deepEqual([await count("positions", user.orgId), await count("candidates", user.orgId)], [1, 1]);
      assert.deepEqual(await hb.positions.get(position.id), position);
      assert.equal(candidate.position_id, position.id);
    });

    test("a 503 after the create committed: the SDK's retry gets the committed answer; a retry without the key gets 409", async () => {
      const user = await identity.login();
      const keys: (string | null)[] = [];
      // The server commits each create, then its answer is a 503 (as when Postgres freezes between
      // the commit and the answer): the caller cannot tell that anything was written.
      const failsAfterCommit = async (input: string, init: RequestInit) => {
        const res = await fetch(input, init);
        if (init.method !== "POST" || !input.startsWith(api)) return res;
        keys.push(new Headers(init.headers).get("idempotency-key"));
        if (keys.length % 2 === 0) return res;
        assert.equal(res.status, 200, "the first attempt committed");
        await res.arrayBuffer();
        return new Response(JSON.stringify({ detail: "Storage is unavailable" }), {
          status: 503,
          headers: { "content-type": "application/json", "retry-after": "0" },
        });
      };
      const hb = new Hirebridge({
        authUrl: identity.authUrl,
        apiUrl: api,
        orgId: user.orgId,
        credentials: { username: user.username, password: user.password },
        fetch: failsAfterCommit,
      });
      const position = await hb.positions.create({ name: "Committed before the 503" });
      const body = { name: "Katherine Johnson", email: "katherine@example.com", phone: "+1 555 0101", language: "en" };
      const candidate = await hb.candidates.create(position.id, body);
      assert.equal(keys.length, 4, "each create was sent twice");
      assert.ok(
        keys[0] && keys[0] === keys[1] && keys[2] && keys[2] === keys[3] && keys[0] !== keys[2],
        "one key per create, kept by its retry",
      );
      assert.deepEqual([await count("positions", user.orgId), await count("candidates", user.orgId)], [1, 1]);
      assert.deepEqual(await hb.candidates.get(position.id, candidate.id), candidate);

      // The same retry without a key is another request: it finds its own first attempt's email.
      const bare = await post(api, user, `/positions/${position.id}/`, { ...body, email: "dorothy@example.com", name: "Dorothy Vaughan" });
      assert.equal(bare.status, 200);
      const retried = await post(api, user, `/positions/${position.id}/`, {
        ...body,
        email: "dorothy@example.com",
        name: "Dorothy Vaughan",
      });
      assert.equal(retried.status, 409, JSON.stringify(retried.body));
    });

    test("the CLI's creates (positions create, candidates add) carry a key: after a 503 that followed the commit they get the committed answer", async () => {
      const user = await identity.login();
      const lossy = await failsFirstAnswerOfEachCreate(api);
      const cli = await Cli.create({ authUrl: identity.authUrl, apiUrl: lossy.url, proxyUrl: lossy.url });
      try {
        await cli.login(user.username, user.password);
        const position = await cli.json<{ id: string; name: string }>(["positions", "create", "--name", "Created through the CLI"]);
        const candidate = await cli.json<{ id: string; position_id: string }>([
          "candidates",
          "add",
          position.id,
          ...["--name", "Mary Jackson", "--email", "mary@example.com", "--phone", "+1 555 0102", "--language", "en"],
        ]);
        assert.equal(candidate.position_id, position.id);
        const keys = lossy.creates.map((c) => c.key);
        assert.equal(keys.length, 4, `each create was sent twice: ${JSON.stringify(lossy.creates)}`);
        assert.ok(
          keys[0] && keys[0] === keys[1] && keys[2] && keys[2] === keys[3] && keys[0] !== keys[2],
          "one key per create, kept by its retry",
        );
        assert.deepEqual(
          lossy.creates.map((c) => c.status),
          [503, 200, 503, 200],
          "the first answer of each was lost",
        );
        assert.deepEqual([await count("positions", user.orgId), await count("candidates", user.orgId)], [1, 1]);
      } finally {
        await cli.dispose();
        await lossy.close();
      }
    });
  });
}

/**
 * An HTTP front of the recruiting API (as a load balancer would stand) that passes every request
 * on, but answers the first committed `POST` of each idempotency key (or of no key) with a 503:
 * as when Postgres freezes between a create's commit and its answer.
 */
async function failsFirstAnswerOfEachCreate(api: string) {
  const target = new URL(api).origin;
  const creates: { key: string | null; status: number }[] = [];
  const answered = new Set<string | null>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === "string" && !["host", "connection", "content-length"].includes(name)) headers.set(name, value);
      }
      const upstream = await fetch(`${target}${req.url}`, {
        method: req.method ?? "GET",
        headers,
        ...(chunks.length ? { body: Buffer.concat(chunks) } : {}),
      });
      const body = Buffer.from(await upstream.arrayBuffer());
      if (req.method === "POST" && req.url?.startsWith("/api/v1/org/")) {
        const key = typeof req.headers["idempotency-key"] === "string" ? req.headers["idempotency-key"] : null;
        const lose = upstream.status === 200 && (key === null || !answered.has(key));
        answered.add(key);
        creates.push({ key, status: lose ? 503 : upstream.status });
        if (lose) {
          res.writeHead(503, { "content-type": "application/json", "retry-after": "0" });
          res.end(JSON.stringify({ detail: "Storage is unavailable" }));
          return;
        }
      }
      res.writeHead(upstream.status, { "content-type": upstream.headers.get("content-type") ?? "application/json" });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`,
    creates,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
