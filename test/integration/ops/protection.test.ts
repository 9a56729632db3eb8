import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { connect, createServer, type Server, type Socket } from "node:net";
import { after, before, describe, test } from "node:test";
import { buildRecruitingApp } from "../../../src/services/recruiting/app.js";
import { openDatabase, type Database } from "../../../src/shared/db/database.js";
import { migrate } from "../../../src/shared/db/migrate.js";
import { startTestIdentity, type TestIdentity } from "../../helpers/auth.js";
import { silentLogger, testConfig } from "../../helpers/config.js";
import { freshDatabase, TEST_DATABASE_URL, TEST_REDIS_URL } from "../../helpers/db.js";

describe("protection and readiness of the resource servers", () => {
  let database: Database & { dispose(): Promise<void> };
  let identity: TestIdentity;
  before(async () => {
    database = await freshDatabase("postgres");
    identity = await startTestIdentity(database);
  });
  after(async () => {
    await identity.close();
    await database.dispose();
  });
  const api = (overrides: Record<string, string | number> = {}) =>
    buildRecruitingApp({ config: testConfig(overrides), database, logger: silentLogger(), verify: identity.verify });

  test("each caller gets its own rate limit; over it, 429 with Retry-After and a detail", async (t) => {
    const app = await api({ RATE_LIMIT_PER_MINUTE: 3 });
    t.after(() => app.close());
    const a = await identity.login();
    const b = await identity.login();
    const get = (token: string) => app.inject({ method: "GET", url: "/api/v1/org_id", headers: { authorization: `Bearer ${token}` } });
    for (let i = 0; i < 3; i++) assert.equal((await get(a.accessToken)).statusCode, 200);
    const limited = await get(a.accessToken);
    assert.equal(limited.statusCode, 429);
    assert.ok(Number(limited.headers["retry-after"]) > 0);
    assert.match(limited.json().detail, /Rate limit exceeded/);
    assert.equal((await get(b.accessToken)).statusCode, 200, "another caller is not affected");
    assert.equal((await app.inject({ method: "GET", url: "/healthz" })).statusCode, 200, "health checks are not limited");
  });

  test("with Redis the limit is shared by every instance", async (t) => {
    const redisUrl = TEST_REDIS_URL;
    const user = await identity.login();
    const [one, two] = [
      await api({ RATE_LIMIT_PER_MINUTE: 4, REDIS_URL: redisUrl }),
      await api({ RATE_LIMIT_PER_MINUTE: 4, REDIS_URL: redisUrl }),
    ];
    t.after(async () => {
      await one.close();
      await two.close();
    });
    const get = (app: typeof one) =>
      app.inject({ method: "GET", url: "/api/v1/org_id", headers: { authorization: `Bearer ${user.accessToken}` } });
    const statuses = [];
    for (const app of [one, two, one, two, one]) statuses.push((await get(app)).statusCode);
    assert.deepEqual(statuses, [200, 200, 200, 200, 429]);
  });

  test("a body over the limit is 413, and answers carry security headers", async (t) => {
    const app = await api({ BODY_LIMIT_BYTES: 2048 });
    t.after(() => app.close());
    const user = await identity.login();
    const res = await app.inject({
      method: "POST",
      url: `/api/v1/org/${user.orgId}/position`,
      headers: { authorization: `Bearer ${user.accessToken}`, "content-type": "application/json" },
      payload: JSON.stringify({ name: "x", role_description: "y".repeat(4000) }),
    });
    assert.equal(res.statusCode, 413);
    assert.equal(typeof res.json().detail, "string");
    assert.equal(res.headers["x-content-type-options"], "nosniff");
    // A browser on another origin (the SDK in a web app) may call the API with a bearer token.
    const preflight = await app.inject({
      method: "OPTIONS",
      url: `/api/v1/org/${user.orgId}/position`,
      headers: {
        origin: "https://app.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization,content-type",
      },
    });
    assert.equal(preflight.statusCode, 204);
    assert.equal(preflight.headers["access-control-allow-origin"], "*");
    assert.match(String(preflight.headers["access-control-allow-headers"]), /authorization/);
    assert.ok(res.headers["strict-transport-security"]);
  });

  test("a client that trickles its request is cut off", async (t) => {
    const app = await api({ REQUEST_TIMEOUT_MS: 1000 });
    t.after(() => app.close());
    await app.listen({ host: "127.0.0.1", port: 0 });
    const { port } = app.server.address() as { port: number };
    const socket = connect(port, "127.0.0.1");
    socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\n");
    const started = Date.now();
    const answer = await new Promise<string>((resolve) => {
      let data = "";
      socket.on("data", (d) => (data += d.toString()));
      socket.on("close", () => resolve(data));
    });
    assert.ok(Date.now() - started < 10_000);
    assert.match(answer, /^HTTP\/1\.1 408/);
  });

  test("a body over the limit sent whole gets its 413 on a connection that stays usable; a huge one is cut off", async (t) => {
    const app = await api({ BODY_LIMIT_BYTES: 2048 });
    t.after(() => app.close());
    await app.listen({ host: "127.0.0.1", port: 0 });
    const { port } = app.server.address() as { port: number };
    const user = await identity.login();
    const head = (length: number) =>
      `POST /api/v1/org/${user.orgId}/position HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${user.accessToken}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;
    /** Writes `parts` on a new connection; resolves with what came back once `done` holds or it closed. */
    const exchange = (parts: string[], done: (data: string) => boolean) =>
      new Promise<{ data: string; errors: string[]; closed: boolean }>((resolve) => {
        const socket = connect(port, "127.0.0.1");
        const errors: string[] = [];
        let data = "";
        socket.on("error", (e: NodeJS.ErrnoException) => errors.push(e.code ?? e.message));
        socket.on("data", (d) => {
          data += d.toString();
          if (done(data)) {
            socket.destroy();
            resolve({ data, errors, closed: false });
          }
        });
        socket.on("close", () => resolve({ data, errors, closed: true }));
        for (const part of parts) socket.write(part);
      });

    // What a proxy in front does: send the whole body, then read. The rest of the body is read and
    // discarded, so neither the 413 nor the next request on the connection meets a reset.
    const body = JSON.stringify({ name: "x", role_description: "y".repeat(500_000) });
    const whole = await exchange([head(body.length), body, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"], (d) =>
      /HTTP\/1\.1 200[\s\S]*\r\n\r\n\{/.test(d),
    );
    assert.deepEqual(whole.errors, []);
    assert.equal(whole.closed, false, `the connection stayed open for the next request: ${whole.data.slice(0, 300)}`);
    const [first] = whole.data.split(/(?=HTTP\/1\.1 200)/);
    assert.match(first!, /^HTTP\/1\.1 413/);
    assert.doesNotMatch(first!, /connection: close/i);
    assert.match(first!, /"detail":"[^"]*too large/i);

    // A declared body beyond what is worth reading (16 MiB) is answered and the connection closed.
    const huge = await exchange([head(32 * 1024 * 1024), "{"], () => false);
    assert.equal(huge.closed, true);
    assert.match(huge.data, /^HTTP\/1\.1 413/);
    assert.match(huge.data, /connection: close/i);
  });

  test("/readyz fails while Postgres is unreachable and recovers by itself", async (t) => {
    // A TCP relay in front of Postgres that the test can cut and restore.
    const target = new URL(TEST_DATABASE_URL);
    const sockets = new Set<Socket>();
    let relay: Server;
    const open = (port: number) =>
      new Promise<Server>((resolve) => {
        const srv = createServer((client) => {
          const upstream = connect(Number(target.port || 5432), target.hostname);
          for (const s of [client, upstream]) {
            sockets.add(s);
            s.on("close", () => sockets.delete(s));
            s.on("error", () => {});
          }
          client.pipe(upstream).pipe(client);
        });
        srv.listen(port, "127.0.0.1", () => resolve(srv));
      });
    relay = await open(0);
    const port = (relay.address() as { port: number }).port;
    const url = `postgres://postgres@127.0.0.1:${port}/${target.pathname.slice(1)}`;
    const viaRelay = await openDatabase({ url, schema: database.schema, poolSize: 2 });
    await migrate(viaRelay);
    const app = await buildRecruitingApp({ config: testConfig(), database: viaRelay, logger: silentLogger(), verify: identity.verify });
    t.after(async () => {
      await app.close();
      await viaRelay.close().catch(() => {});
      relay.close();
    });
    const readyz = async () => (await app.inject({ method: "GET", url: "/readyz" })).statusCode;
    /** The status /readyz settles on: its answer is reused for about a second (READINESS_CACHE_MS). */
    const settles = async (want: number) => {
      let status = 0;
      for (let i = 0; i < 50 && status !== want; i++) {
        status = await readyz();
        if (status !== want) await new Promise((r) => setTimeout(r, 100));
      }
      return status;
    };
    assert.equal(await readyz(), 200);
    await new Promise<void>((resolve) => relay.close(() => resolve()));
    for (const s of sockets) s.destroy();
    assert.equal(await settles(503), 503);
    assert.equal((await app.inject({ method: "GET", url: "/healthz" })).statusCode, 200, "liveness does not depend on Postgres");
    relay = await open(port);
    assert.equal(await settles(200), 200);
  });
});

describe("the token endpoint's rate limit", () => {
  test("counts per client address", async (t) => {
    const database = await freshDatabase("pglite");
    const identity = await startTestIdentity(database, { overrides: { TOKEN_RATE_LIMIT_PER_MINUTE: 2 } });
    t.after(async () => {
      await identity.close();
      await database.dispose();
    });
    const form = new URLSearchParams({
      grant_type: "password",
      client_id: "hirebridge",
      username: `nobody-${randomBytes(3).toString("hex")}`,
      password: "x",
    });
    const post = () => fetch(`${identity.authUrl}/protocol/openid-connect/token`, { method: "POST", body: form });
    assert.equal((await post()).status, 401);
    assert.equal((await post()).status, 401);
    const limited = await post();
    assert.equal(limited.status, 429);
    assert.ok(limited.headers.get("retry-after"));
    const body = (await limited.json()) as { error: string; error_description: string };
    assert.match(body.error_description, /Rate limit exceeded/);
  });
});
