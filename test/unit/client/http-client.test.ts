import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  AbortedError,
  ApiError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  ForbiddenError,
  NotFoundError,
  RateLimitError,
  ServerError,
  TimeoutError,
  UnauthorizedError,
  UpstreamUnavailableError,
  ValidationError,
} from "../../../src/client/core/errors.js";
import { HttpClient, type TokenSource } from "../../../src/client/core/http-client.js";
import { DEFAULT_RETRY_POLICY } from "../../../src/client/core/retry.js";
import { json, manualClock, scriptedFetch } from "./fakes.js";

const BASE = "https://api.example.test/api/v1";

function tokens(): TokenSource & { invalidated: string[]; issued: number } {
  const t = {
    invalidated: [] as string[],
    issued: 0,
    getAccessToken: async () => `token-${++t.issued}`,
    invalidate: (token: string) => {
      t.invalidated.push(token);
    },
  };
  return t;
}

function client(script: Parameters<typeof scriptedFetch>[0], opts: { maxRetries?: number; timeoutMs?: number } = {}) {
  const fake = scriptedFetch(script);
  const clock = manualClock();
  const source = tokens();
  const http = new HttpClient({
    fetch: fake.fetch,
    clock,
    timeoutMs: opts.timeoutMs ?? 5_000,
    retry: { ...DEFAULT_RETRY_POLICY, maxRetries: opts.maxRetries ?? 2 },
    tokens: source,
  });
  return { http, seen: fake.seen, clock, source };
}

const get = { method: "GET" as const, baseUrl: BASE, path: "/org/o1/position" };
const post = { method: "POST" as const, baseUrl: BASE, path: "/org/o1/position", body: { name: "x" } };

describe("HTTP core: requests", () => {
  test("sends JSON with the bearer token and answers the parsed body", async () => {
    const { http, seen } = client([json(200, { items: [] })]);
    const body = await http.request({ ...post, query: { ids: ["a", "b"], cursor: null, page_size: 50, skip: undefined } });
    assert.deepEqual(body, { items: [] });
    assert.equal(seen[0]!.url, `${BASE}/org/o1/position?ids=a%2Cb&page_size=50`);
    assert.equal(seen[0]!.method, "POST");
    assert.equal(seen[0]!.headers["authorization"], "Bearer token-1");
    assert.equal(seen[0]!.headers["content-type"], "application/json");
    assert.equal(seen[0]!.body, '{"name":"x"}');
  });

  test("a GET carries no body and no content type", async () => {
    const { http, seen } = client([json(200, {})]);
    await http.request(get);
    assert.equal(seen[0]!.body, undefined);
    assert.equal(seen[0]!.headers["content-type"], undefined);
  });
});

describe("HTTP core: typed errors per status", () => {
  const cases: [number, unknown, new (...args: never[]) => ApiError][] = [
    [400, { detail: "bad" }, BadRequestError],
    [403, { detail: "Forbidden" }, ForbiddenError],
    [404, { detail: "Position not found" }, NotFoundError],
    [409, { detail: "duplicate email" }, ConflictError],
    [418, { detail: "teapot" }, ApiError],
    [500, "Internal Server Error", ServerError],
    [502, { detail: "upstream unavailable" }, UpstreamUnavailableError],
  ];
  for (const [status, body, Class] of cases) {
    test(`${status} → ${Class.name}`, async () => {
      const { http } = client([json(status, body, { "x-request-id": "req-7" })], { maxRetries: 0 });
      const err = await http.request(post).catch((e: unknown) => e);
      assert.ok(err instanceof Class, `got ${String(err)}`);
      assert.equal(err.constructor, Class);
      assert.equal(err.status, status);
      assert.deepEqual(err.body, body);
      assert.equal(err.requestId, "req-7");
      assert.equal(err.path, "/api/v1/org/o1/position");
      assert.match(err.message, new RegExp(`^POST /api/v1/org/o1/position failed with ${status}: `));
    });
  }

  test("422 is a ValidationError carrying every issue of `detail`", async () => {
    const detail = [
      { loc: ["body", "name"], msg: "Field required", type: "missing" },
      { loc: ["body", "min_score"], msg: "Input should be less than or equal to 2147483647", type: "less_than_equal" },
    ];
    const { http } = client([json(422, { detail })]);
    const err = await http.request(post).catch((e: unknown) => e);
    assert.ok(err instanceof ValidationError);
    assert.deepEqual(err.detail, detail);
    assert.equal(err.message, "POST /api/v1/org/o1/position failed with 422: body.name: Field required (and 1 more)");
  });

  test("504 is an UpstreamUnavailableError that says it timed out; the upstream's envelope is described", async () => {
    const { http } = client([json(504, { detail: "The upstream did not answer in time" })], { maxRetries: 0 });
    const err = await http.request(get).catch((e: unknown) => e);
    assert.ok(err instanceof UpstreamUnavailableError && err.timedOut);
    const { http: http2 } = client([
      json(404, {
        status: "error",
        error: { code: "PLATFORM.INTEGRATION_NOT_FOUND", title: "Not found", message: "No integration", log_url: null },
      }),
    ]);
    const err2 = await http2.request(get).catch((e: unknown) => e);
    assert.ok(err2 instanceof NotFoundError);
    assert.match(err2.message, /PLATFORM\.INTEGRATION_NOT_FOUND: No integration$/);
  });

  test("messages carry neither the query string nor the token", async () => {
    const { http } = client([json(404, { detail: "nope" })]);
    const err = await http.request({ ...get, query: { secretish: "value-123" } }).catch((e: unknown) => e);
    assert.ok(err instanceof NotFoundError);
    assert.ok(!err.message.includes("value-123") && !err.message.includes("token-1"));
  });
});

describe("HTTP core: one new attempt after a 401", () => {
  test("invalidates the rejected token and sends once more with a new one", async () => {
    const { http, seen, source } = client([json(401, { detail: "Invalid token: token has expired" }), json(200, { ok: true })], {
      maxRetries: 0,
    });
    assert.deepEqual(await http.request(post), { ok: true });
    assert.deepEqual(source.invalidated, ["token-1"]);
    assert.deepEqual(
      seen.map((s) => s.headers["authorization"]),
      ["Bearer token-1", "Bearer token-2"],
    );
  });

  test("a second 401 is final", async () => {
    const { http, seen } = client([json(401, { detail: "no" }), json(401, { detail: "still no" })]);
    const err = await http.request(get).catch((e: unknown) => e);
    assert.ok(err instanceof UnauthorizedError);
    assert.equal(seen.length, 2);
  });
});

describe("HTTP core: retries", () => {
  test("an idempotent call is retried after a 5xx with back-off, up to maxRetries", async () => {
    const { http, seen, clock } = client([json(503, { detail: "busy" }), json(500, {}), json(200, { items: [] })]);
    assert.deepEqual(await http.request(get), { items: [] });
    assert.equal(seen.length, 3);
    assert.equal(clock.sleeps.length, 2);
    assert.ok(clock.sleeps[0]! >= 125 && clock.sleeps[0]! <= 500, `first wait ${clock.sleeps[0]}`);
    assert.ok(clock.sleeps[1]! >= 250 && clock.sleeps[1]! <= 1000, `second wait ${clock.sleeps[1]}`);
  });

  test("gives up after maxRetries and throws the last error", async () => {
    const { http, seen } = client([json(503, {}), json(503, {}), json(503, { detail: "still down" })]);
    const err = await http.request(get).catch((e: unknown) => e);
    assert.ok(err instanceof ServerError);
    assert.match(err.message, /still down/);
    assert.equal(seen.length, 3);
  });

  test("a POST is not repeated after a 5xx (it may have had its effect)", async () => {
    const { http, seen } = client([json(500, {})]);
    await assert.rejects(http.request(post), ServerError);
    assert.equal(seen.length, 1);
  });

  test("a 429 is retried for any method, waiting Retry-After seconds", async () => {
    const { http, clock } = client([json(429, { detail: "slow down" }, { "retry-after": "3" }), json(200, { id: "p1" })]);
    assert.deepEqual(await http.request(post), { id: "p1" });
    assert.deepEqual(clock.sleeps, [3000]);
  });

  test("Retry-After as an HTTP date waits until that date", async () => {
    const at = new Date(manualClock().now() + 7_000).toUTCString(); // every manual clock starts at the same instant
    const c = client([json(503, {}, { "retry-after": at }), json(200, {})]);
    await c.http.request(get);
    assert.deepEqual(c.clock.sleeps, [7000]);
  });

  test("a Retry-After beyond a minute is the caller's decision: RateLimitError with retryAfter", async () => {
    const { http, seen } = client([json(429, { detail: "quota" }, { "retry-after": "120" })]);
    const err = await http.request(get).catch((e: unknown) => e);
    assert.ok(err instanceof RateLimitError);
    assert.equal(err.retryAfter, 120);
    assert.equal(seen.length, 1);
  });

  test("connection failures: idempotent calls are retried, then a ConnectionError; POSTs are not", async () => {
    const refused = () => Object.assign(new TypeError("fetch failed"), { cause: { code: "ECONNREFUSED" } });
    const g = client([refused(), json(200, { ok: 1 })]);
    assert.deepEqual(await g.http.request(get), { ok: 1 });
    const p = client([refused()]);
    const err = await p.http.request(post).catch((e: unknown) => e);
    assert.ok(err instanceof ConnectionError);
    assert.equal(err.message, "POST /api/v1/org/o1/position could not reach api.example.test");
    assert.equal(p.seen.length, 1);
  });

  test("a token that could not be obtained is retried even for a POST: nothing reached the API", async () => {
    const fake = scriptedFetch([json(200, { id: 1 })]);
    const clock = manualClock();
    let calls = 0;
    const http = new HttpClient({
      fetch: fake.fetch,
      clock,
      timeoutMs: 1000,
      retry: DEFAULT_RETRY_POLICY,
      tokens: {
        getAccessToken: async () => {
          if (++calls === 1) throw new ConnectionError({ method: "POST", url: "https://id.example.test/token" });
          return "t";
        },
        invalidate: () => undefined,
      },
    });
    assert.deepEqual(await http.request(post), { id: 1 });
    assert.equal(calls, 2);
  });
});

describe("HTTP core: deadlines and cancellation", () => {
  test("no answer within timeoutMs is a TimeoutError (retried for GET, then final)", async () => {
    const { http, seen } = client(["hang", "hang"], { timeoutMs: 30, maxRetries: 1 });
    const err = await http.request(get).catch((e: unknown) => e);
    assert.ok(err instanceof TimeoutError);
    assert.equal(err.timeoutMs, 30);
    assert.equal(seen.length, 2);
  });

  test("a body that stalls after the headers also times out", async () => {
    const stalled = new Response(new ReadableStream({ start() {} }), { status: 200, headers: { "content-type": "application/json" } });
    const { http } = client([stalled], { timeoutMs: 30, maxRetries: 0 });
    await assert.rejects(http.request(get), TimeoutError);
  });

  test("the caller's AbortSignal cancels the call with AbortedError, not a retry", async () => {
    const { http, seen } = client(["hang"]);
    const controller = new AbortController();
    const pending = http.request(get, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error("user navigated away")), 10);
    const err = await pending.catch((e: unknown) => e);
    assert.ok(err instanceof AbortedError);
    assert.equal((err.cause as Error).message, "user navigated away");
    assert.equal(seen.length, 1);
  });

  test("an already aborted signal sends nothing", async () => {
    const { http, seen } = client([]);
    await assert.rejects(http.request(get, { signal: AbortSignal.abort() }), AbortedError);
    assert.equal(seen.length, 0);
  });
});

describe("HTTP core: creates with an idempotency key", () => {
  const keyed = { ...post, idempotencyKey: "key-1" };

  test("a POST with a key is retried after a lost connection and a 503, every attempt with the same key", async () => {
    const { http, seen } = client([new TypeError("other side closed"), json(503, { detail: "down" }), json(200, { id: "p1" })]);
    assert.deepEqual(await http.request(keyed), { id: "p1" });
    assert.deepEqual(
      seen.map((s) => s.headers["idempotency-key"]),
      ["key-1", "key-1", "key-1"],
    );
  });

  test("a 409 with Retry-After (the key's first request still running) is waited out; a plain 409 is not", async () => {
    const busy = () => json(409, { detail: "still being processed" }, { "retry-after": "1" });
    const waited = client([busy(), json(200, { id: "p1" })]);
    assert.deepEqual(await waited.http.request(keyed), { id: "p1" });
    assert.deepEqual(waited.clock.sleeps, [1000]);
    const taken = client([json(409, { detail: "email taken" })]);
    await assert.rejects(taken.http.request(keyed), ConflictError);
    const unkeyed = client([busy()]);
    await assert.rejects(unkeyed.http.request(post), ConflictError);
  });

  test("a POST without a key is not retried after a lost connection", async () => {
    const { http, seen } = client([new TypeError("other side closed"), json(200, { id: "p1" })]);
    await assert.rejects(http.request(post), ConnectionError);
    assert.equal(seen.length, 1);
    assert.equal(seen[0]!.headers["idempotency-key"], undefined);
  });
});
