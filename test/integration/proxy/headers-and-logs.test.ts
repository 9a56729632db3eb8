import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { after, before, describe, test } from "node:test";
import { pino } from "pino";
import { buildProxyWithSync } from "../../../src/runtime/wiring.js";
import { filterResponseHeaders } from "../../../src/shared/upstream/headers.js";
import { testConfig } from "../../helpers/config.js";
import { sampleIds, type SampleIds } from "./operation-samples.js";
import { startProxyHarness, upstreamCalls, type ProxyHarness } from "./proxy-harness.js";

describe("proxy: what crosses it in each direction", () => {
  let h: ProxyHarness;
  let ids: SampleIds;
  before(async () => {
    h = await startProxyHarness("postgres");
    ids = await sampleIds(h);
  });
  after(async () => {
    await h?.close();
  });

  test("the caller's Authorization never goes upstream; the service's key does, and never comes back", async () => {
    h.seen.length = 0;
    const res = await h.call("GET", `/api/v1/ats/jobs?integration_id=${h.integration}&page_size=1`, {
      headers: { cookie: "session=abc", "x-forwarded-for": "10.0.0.1" },
    });
    assert.equal(res.statusCode, 200);
    const calls = upstreamCalls(h.seen);
    assert.ok(calls.length >= 1);
    for (const c of calls) {
      assert.equal(c.headers.authorization, `Bearer ${h.sandbox.apiKey}`);
      assert.ok(!JSON.stringify(c.headers).includes(h.demo.accessToken), "the caller's token stayed here");
      assert.equal(c.headers.cookie, undefined);
      assert.equal(c.headers["x-forwarded-for"], undefined);
      assert.equal(c.headers.accept, "application/json");
    }
    assert.ok(!JSON.stringify(res.headers).includes(h.sandbox.apiKey));
    assert.ok(!res.body.includes(h.sandbox.apiKey));
  });

  test("an upstream error that echoes the service's key is passed on with the key redacted", async () => {
    // A misbehaving upstream (the sandbox never does this): it repeats the Authorization it got.
    const echo = createServer((req, res) => {
      const body = JSON.stringify({
        status: "error",
        error: { code: "PLATFORM.INPUT_INVALID", title: null, message: `rejected ${req.headers.authorization}`, log_url: null },
      });
      res.writeHead(400, { "content-type": "application/json", "x-debug-auth": String(req.headers.authorization) }).end(body);
    });
    await new Promise<void>((r) => echo.listen(0, "127.0.0.1", r));
    try {
      const app = await h.extraApp({
        UPSTREAM_BASE_URL: `http://127.0.0.1:${(echo.address() as AddressInfo).port}/v1`,
        UPSTREAM_API_KEY: "echoed-secret-key",
      });
      const res = await app.inject({ url: "/api/v1/general/tools/ats", headers: { authorization: `Bearer ${h.demo.accessToken}` } });
      assert.equal(res.statusCode, 400);
      assert.deepEqual(res.json(), {
        status: "error",
        error: { code: "PLATFORM.INPUT_INVALID", title: null, message: "rejected Bearer <redacted>", log_url: null },
      });
      assert.equal(res.headers["x-debug-auth"], undefined);
      assert.ok(!JSON.stringify(res.headers).includes("echoed-secret-key"));
    } finally {
      await new Promise((r) => echo.close(r));
    }
  });

  test("X-Request-Id: the caller's is forwarded and returned; one is generated when absent", async () => {
    h.seen.length = 0;
    const given = await h.call("GET", "/api/v1/general/tools/ats", { headers: { "x-request-id": "trace-abc-123" } });
    assert.equal(given.headers["x-request-id"], "trace-abc-123");
    assert.equal(h.attempts("trace-abc-123").length, 1);

    h.seen.length = 0;
    const generated = await h.call("GET", `/api/v1/general/check-api-key?integration_id=${h.integration}`);
    const id = String(generated.headers["x-request-id"]);
    assert.match(id, /^[0-9a-f-]{36}$/);
    assert.deepEqual(
      upstreamCalls(h.seen).map((c) => c.headers["x-request-id"]),
      [id],
    );
  });

  test("the upstream's end-to-end headers pass (Concurrency-*), hop-by-hop and its own ones do not", async () => {
    const res = await h.call("POST", `/api/v1/ats/applications/${ids.applicationId}/notes?integration_id=${h.integration}`, {
      payload: { content: "headers" },
    });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers["concurrency-limit"], "30");
    assert.ok(res.headers["concurrency-remaining"] !== undefined);

    const filtered = filterResponseHeaders(
      {
        connection: "keep-alive, x-hop",
        "keep-alive": "timeout=5",
        "transfer-encoding": "chunked",
        "x-hop": "1",
        "set-cookie": ["a=1"],
        "access-control-allow-origin": "*",
        "www-authenticate": "Bearer",
        server: "upstream/1.0",
        "x-request-id": "theirs",
        "content-type": "application/json",
        "retry-after": "2",
        "concurrency-limit": "30",
        "x-echo": "Bearer secret-key",
      },
      "secret-key",
    );
    assert.deepEqual(filtered, { "content-type": "application/json", "retry-after": "2", "concurrency-limit": "30" });
  });

  test("logs carry no secrets: not the API key, the caller's token, nor an activation token", async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const app = await buildProxyWithSync({
      config: testConfig({ UPSTREAM_BASE_URL: h.sandbox.url, UPSTREAM_API_KEY: h.sandbox.apiKey, UPSTREAM_RETRY_BASE_MS: 5 }),
      database: h.deps.database,
      logger: pino({ level: "trace" }, sink),
      verify: h.identity.verify,
    });
    try {
      const auth = { authorization: `Bearer ${h.demo.accessToken}` };
      await h.sandboxConfig({ fail_next: 2, fault_kinds: ["503"], fault_path_prefix: "/connect/" });
      const activation = await app.inject({
        method: "POST",
        url: "/api/v1/connect/activate",
        headers: auth,
        payload: { activation_token: "very-secret-activation-token" },
      });
      assert.equal(activation.statusCode, 404, activation.body); // retried twice, then the unknown token's 404
      await app.inject({ url: `/api/v1/ats/jobs?integration_id=${h.integration}`, headers: auth });
      await app.inject({ url: "/api/v1/general/tools/ats", headers: { authorization: "Bearer forged.token.value" } });
      const log = lines.join("");
      assert.match(log, /retrying/, "the retries were logged");
      assert.match(log, /integration-by-token\/<redacted>/);
      for (const secret of [h.sandbox.apiKey, h.demo.accessToken, "very-secret-activation-token", "forged.token.value"]) {
        assert.ok(!log.includes(secret), `log leaks ${secret.slice(0, 12)}…`);
      }
    } finally {
      await h.sandboxConfig({ fail_next: 0, fault_path_prefix: null });
      await app.close();
    }
  });
});
