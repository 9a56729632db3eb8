import assert from "node:assert/strict";
import { after, afterEach, before, describe, test } from "node:test";
import { freePort } from "../../helpers/ports.js";
import { sampleIds, type SampleIds } from "./operation-samples.js";
import { startProxyHarness, type ProxyHarness } from "./proxy-harness.js";

const RESET = {
  fail_next: 0,
  fault_rate: 0,
  rate_limit_per_second: 0,
  rate_limit_path_prefix: null,
  fault_path_prefix: null,
  fault_kinds: ["500", "503"],
  fault_timeout_ms: 5000,
};

describe("proxy: upstream failures are mapped, retried where safe, never leaked or hung", () => {
  let h: ProxyHarness;
  let ids: SampleIds;
  let jobs: string;
  let note: string;
  let n = 0;
  const rid = () => `failure-test-${++n}`;

  before(async () => {
    h = await startProxyHarness("postgres", {
      config: { UPSTREAM_RETRIES: 2, UPSTREAM_RETRY_BASE_MS: 20, UPSTREAM_RETRY_MAX_WAIT_MS: 3000 },
    });
    ids = await sampleIds(h);
    jobs = `/api/v1/ats/jobs?integration_id=${h.integration}&page_size=1`;
    note = `/api/v1/ats/applications/${ids.applicationId}/notes?integration_id=${h.integration}`;
    // Record the owner first, so faults aimed at /ats/ meet the operation, not the ownership lookup.
    assert.equal((await h.call("GET", jobs)).statusCode, 200);
  });
  afterEach(() => h.sandboxConfig(RESET));
  after(async () => {
    await h?.close();
  });

  test("a wrong API key (upstream 401) answers 502 saying so, without the key or the upstream's body", async () => {
    const app = await h.extraApp({ UPSTREAM_API_KEY: "wrong-key-123" });
    for (const url of ["/api/v1/general/tools/ats", jobs]) {
      const res = await app.inject({ url, headers: { authorization: `Bearer ${h.demo.accessToken}` } });
      assert.equal(res.statusCode, 502);
      assert.deepEqual(res.json(), {
        detail: "The upstream rejected the proxy's API key; the service's UPSTREAM_API_KEY must be fixed by its operator",
      });
      assert.doesNotMatch(JSON.stringify(res.headers) + res.body, /wrong-key-123|sandbox-api-key|AUTHENTICATION_INVALID/);
    }
  });

  test("a 5xx answers 502 after the read was retried (3 attempts), and is not retried for a write", async () => {
    await h.sandboxConfig({ fail_next: 10, fault_kinds: ["500"], fault_path_prefix: "/ats/" });
    const read = rid();
    const res = await h.call("GET", jobs, { headers: { "x-request-id": read } });
    assert.equal(res.statusCode, 502);
    assert.deepEqual(res.json(), { detail: "The upstream failed with HTTP 500" });
    assert.equal(res.headers["x-request-id"], read);
    assert.equal(h.attempts(read).length, 3);

    const write = rid();
    const w = await h.call("POST", note, { payload: { content: "x" }, headers: { "x-request-id": write } });
    assert.equal(w.statusCode, 502);
    assert.deepEqual(w.json(), { detail: "The upstream failed with HTTP 500" });
    assert.equal(h.attempts(write).length, 1, "a write that reached the upstream is not repeated");
  });

  test("a non-JSON 502 from a load balancer answers 502 with a JSON detail", async () => {
    await h.sandboxConfig({ fail_next: 10, fault_kinds: ["502"], fault_path_prefix: "/ats/" });
    const res = await h.call("GET", jobs);
    assert.equal(res.statusCode, 502);
    assert.deepEqual(res.json(), { detail: "The upstream failed with HTTP 502" });
    assert.match(String(res.headers["content-type"]), /^application\/json/);
  });

  test("a read recovers after a 503 with Retry-After, waiting at least that long", async () => {
    await h.sandboxConfig({ fail_next: 1, fault_kinds: ["503"], fault_path_prefix: "/ats/" });
    const id = rid();
    const started = Date.now();
    const res = await h.call("GET", jobs, { headers: { "x-request-id": id } });
    assert.equal(res.statusCode, 200, res.body);
    assert.ok(Date.now() - started >= 1000, "Retry-After: 1 was honoured");
    assert.equal(h.attempts(id).length, 2);
  });

  test("a rate-limited read is retried after Retry-After; a rate-limited write passes the 429 through with Retry-After", async () => {
    await h.sandboxConfig({ rate_limit_per_second: 1 });
    assert.equal((await h.call("GET", jobs)).statusCode, 200); // takes the only token
    const id = rid();
    const started = Date.now();
    const res = await h.call("GET", jobs, { headers: { "x-request-id": id } });
    assert.equal(res.statusCode, 200, res.body);
    assert.ok(Date.now() - started >= 1000);
    assert.equal(h.attempts(id).length, 2);

    const write = rid();
    const w = await h.call("POST", note, { payload: { content: "rate limited" }, headers: { "x-request-id": write } });
    assert.equal(w.statusCode, 429);
    assert.equal(w.headers["retry-after"], "1");
    const body = w.json() as { status: string; error: { code: string } };
    assert.equal(body.status, "error");
    assert.equal(body.error.code, "PLATFORM.RATE_LIMIT_EXCEEDED");
    assert.equal(h.attempts(write).length, 1);
  });

  test("retries stay within the wait budget: a Retry-After longer than it passes the 429 through at once", async () => {
    const app = await h.extraApp({ UPSTREAM_RETRY_MAX_WAIT_MS: 500 });
    await h.sandboxConfig({ rate_limit_per_second: 1 });
    await app.inject({ url: jobs, headers: { authorization: `Bearer ${h.demo.accessToken}` } });
    const id = rid();
    const res = await app.inject({ url: jobs, headers: { authorization: `Bearer ${h.demo.accessToken}`, "x-request-id": id } });
    assert.equal(res.statusCode, 429);
    assert.equal(res.headers["retry-after"], "1");
    assert.equal(h.attempts(id).length, 1, "no retry: waiting 1 s would exceed the 500 ms budget");
  });

  test("an upstream that does not answer in time is 504, within the timeout", async () => {
    const app = await h.extraApp({ UPSTREAM_TIMEOUT_MS: 400 });
    // The sandbox would hold the request for 20 s; the proxy gives up after its 400 ms.
    await h.sandboxConfig({ fail_next: 1, fault_kinds: ["timeout"], fault_timeout_ms: 20_000, fault_path_prefix: "/ats/" });
    const started = Date.now();
    const res = await app.inject({ url: jobs, headers: { authorization: `Bearer ${h.demo.accessToken}` } });
    const took = Date.now() - started;
    assert.equal(res.statusCode, 504);
    assert.deepEqual(res.json(), { detail: "The upstream did not answer within 400 ms" });
    // Generous upper bound: the machine may be loaded; what matters is it did not wait for the upstream.
    assert.ok(took >= 390 && took < 5000, `took ${took} ms`);

    // Deadlines of seconds run on undici's coarse timer (at most ~0.5 s late).
    const slow = await h.extraApp({ UPSTREAM_TIMEOUT_MS: 2000 });
    await h.sandboxConfig({ fail_next: 1, fault_kinds: ["timeout"], fault_timeout_ms: 20_000, fault_path_prefix: "/ats/" });
    const began = Date.now();
    const late = await slow.inject({ url: jobs, headers: { authorization: `Bearer ${h.demo.accessToken}` } });
    assert.equal(late.statusCode, 504);
    assert.deepEqual(late.json(), { detail: "The upstream did not answer within 2000 ms" });
    assert.ok(Date.now() - began < 8000, `took ${Date.now() - began} ms`);
  });

  test("a dropped connection is retried for a read, and answers 502 for a write", async () => {
    await h.sandboxConfig({ fail_next: 1, fault_kinds: ["drop"], fault_path_prefix: "/ats/" });
    const read = rid();
    const res = await h.call("GET", jobs, { headers: { "x-request-id": read } });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(h.attempts(read).length, 2);

    await h.sandboxConfig({ fail_next: 1, fault_kinds: ["drop"], fault_path_prefix: "/ats/" });
    const write = rid();
    const w = await h.call("POST", note, { payload: { content: "dropped" }, headers: { "x-request-id": write } });
    assert.equal(w.statusCode, 502);
    assert.deepEqual(w.json(), { detail: "The upstream is unreachable: the connection was closed before it answered" });
    assert.equal(h.attempts(write).length, 1);
  });

  test("a refused connection answers 502, for reads and writes (retried: nothing was sent)", async () => {
    const port = await freePort();
    const app = await h.extraApp({ UPSTREAM_BASE_URL: `http://127.0.0.1:${port}/v1` });
    const read = await app.inject({ url: "/api/v1/general/tools/hris", headers: { authorization: `Bearer ${h.demo.accessToken}` } });
    assert.equal(read.statusCode, 502);
    assert.deepEqual(read.json(), { detail: "The upstream is unreachable: the connection was refused" });
    const write = await app.inject({
      method: "POST",
      url: "/api/v1/connect/create-link",
      headers: { authorization: `Bearer ${h.demo.accessToken}` },
      payload: { end_user_email: "a@b.example", end_user_organization_name: "A" },
    });
    assert.equal(write.statusCode, 502);
    assert.deepEqual(write.json(), { detail: "The upstream is unreachable: the connection was refused" });
  });
});
