/** Where clients break: wrong key, rate limit, concurrency limit on actions, latency and injected faults. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { KomboAtsError, KomboDefaultError, KomboGeneralError } from "@kombo-api/sdk/models/errors";
import { startSandbox, type TestSandbox } from "../../helpers/sandbox.js";
import { admin, sdkFor } from "./sdk.js";

const headersOf = (s: TestSandbox) => ({ authorization: `Bearer ${s.apiKey}`, "x-integration-id": s.demoIntegrationId });
const get = (s: TestSandbox, path: string, init: RequestInit = {}) =>
  fetch(`${s.url}${path}`, { ...init, headers: { ...headersOf(s), ...(init.headers ?? {}) } });

test("a wrong or missing API key is 401 PLATFORM.AUTHENTICATION_INVALID with the error envelope", async (t) => {
  const sandbox = await startSandbox();
  t.after(() => sandbox.close());
  for (const authorization of ["Bearer wrong", `Basic ${sandbox.apiKey}`, ""]) {
    const res = await fetch(`${sandbox.url}/ats/jobs`, { headers: { authorization, "x-integration-id": sandbox.demoIntegrationId } });
    assert.equal(res.status, 401);
    assert.equal(res.headers.get("content-type"), "application/json; charset=utf-8");
    assert.deepEqual(await res.json(), {
      status: "error",
      error: {
        code: "PLATFORM.AUTHENTICATION_INVALID",
        title: "Unauthorized",
        message: "The API key is missing or invalid.",
        log_url: null,
      },
    });
  }
});

test("rate limit: 429 PLATFORM.RATE_LIMIT_EXCEEDED with Retry-After, then admitted again", async (t) => {
  // One request per second: the burst below takes far less than a second, even on a busy machine.
  const sandbox = await startSandbox({ rateLimitPerSecond: 1 });
  t.after(() => sandbox.close());
  const statuses: number[] = [];
  let limited: Response | undefined;
  for (let i = 0; i < 3; i++) {
    const res = await get(sandbox, "/check-api-key");
    statuses.push(res.status);
    if (res.status === 429) limited = res;
    else await res.arrayBuffer();
  }
  assert.deepEqual(statuses, [200, 429, 429]);
  assert.equal(limited!.headers.get("retry-after"), "1");
  assert.equal(((await limited!.json()) as { error: { code: string } }).error.code, "PLATFORM.RATE_LIMIT_EXCEEDED");
  await assert.rejects(sdkFor(sandbox, null).general.checkApiKey(), (err: unknown) => {
    assert.ok(err instanceof KomboGeneralError);
    assert.equal(err.statusCode, 429);
    assert.equal(err.error.code, "PLATFORM.RATE_LIMIT_EXCEEDED");
    return true;
  });
  await new Promise((r) => setTimeout(r, 1100));
  assert.equal((await get(sandbox, "/check-api-key")).status, 200);

  // The SDK's own backoff honours Retry-After and gets through.
  const retrying = sdkFor(sandbox, null);
  assert.equal((await get(sandbox, "/check-api-key")).status, 429, "the token was just used");
  const ok = await retrying.general.checkApiKey({
    retries: {
      strategy: "backoff",
      backoff: { initialInterval: 50, maxInterval: 2000, exponent: 1.5, maxElapsedTime: 5000 },
      retryConnectionErrors: false,
    },
  });
  assert.equal(ok.status, "success");

  // Switched off at run time.
  await admin(sandbox, "PUT", "/sandbox/config", { rate_limit_per_second: 0 });
  const burst = await Promise.all(Array.from({ length: 10 }, () => get(sandbox, "/check-api-key")));
  assert.deepEqual(
    burst.map((r) => r.status),
    Array(10).fill(200),
  );
});

test("rate_limit_path_prefix: only requests under it are limited, and only they spend the limit", async (t) => {
  const sandbox = await startSandbox();
  t.after(() => sandbox.close());
  await admin(sandbox, "PUT", "/sandbox/config", { rate_limit_per_second: 1, rate_limit_path_prefix: "/check-api-key" });
  // Outside the prefix: a burst, none limited, and the one token is still there afterwards.
  const lists = await Promise.all(Array.from({ length: 5 }, () => get(sandbox, "/ats/jobs?page_size=1")));
  for (const r of lists) await r.arrayBuffer();
  assert.deepEqual(
    lists.map((r) => r.status),
    Array(5).fill(200),
  );
  const statuses: number[] = [];
  for (let i = 0; i < 2; i++) {
    const res = await get(sandbox, "/check-api-key");
    await res.arrayBuffer();
    statuses.push(res.status);
  }
  assert.deepEqual(statuses, [200, 429]);
  // Back to every request.
  await admin(sandbox, "PUT", "/sandbox/config", { rate_limit_path_prefix: null });
  const res = await get(sandbox, "/ats/jobs?page_size=1");
  await res.arrayBuffer();
  assert.equal(res.status, 429, "the token the scoped request spent is gone for every path");
});

test("concurrency limit: the action over the limit is 429 with Concurrency-* headers; reads are not limited", async (t) => {
  const sandbox = await startSandbox({ concurrencyLimit: 2, latencyMs: 1000 });
  t.after(() => sandbox.close());
  const app = sandbox.context.store.get(sandbox.demoIntegrationId)!.data.applications.find("deletedAt", (d) => d === null)!;
  const note = () =>
    get(sandbox, `/ats/applications/${app.id}/notes`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ content: "hi" }),
    });
  const pending = [note(), note()];
  // The third action arrives while both slots are taken (held by the 1 s latency).
  while (sandbox.context.concurrency.inFlight(sandbox.demoIntegrationId) < 2) await new Promise((r) => setTimeout(r, 10));
  const results = await Promise.all([...pending, note()]);
  assert.deepEqual(
    results.map((r) => r.status),
    [200, 200, 429],
  );
  const [first, , over] = results;
  assert.equal(first!.headers.get("concurrency-limit"), "2");
  assert.ok(["0", "1"].includes(first!.headers.get("concurrency-remaining")!));
  assert.equal(over!.headers.get("concurrency-limit"), "2");
  assert.equal(over!.headers.get("concurrency-remaining"), "0");
  assert.equal(over!.headers.get("retry-after"), "1");
  assert.deepEqual(await over!.json(), {
    status: "error",
    error: {
      code: "PLATFORM.CONCURRENCY_LIMIT_EXCEEDED",
      title: "Concurrency limit exceeded",
      message: "At most 2 concurrent actions per integration.",
      log_url: null,
    },
  });
  // Slots are released: the next action goes through.
  assert.equal((await note()).status, 200);
  const reads = await Promise.all(Array.from({ length: 4 }, () => get(sandbox, "/ats/jobs?page_size=1")));
  assert.deepEqual(
    reads.map((r) => r.status),
    [200, 200, 200, 200],
  );
  // The latency is real.
  const started = Date.now();
  await get(sandbox, "/ats/tags");
  assert.ok(Date.now() - started >= 990);
});

test("faults: 500 and 503 with the right codes per endpoint group, 502 as a load balancer's plain text", async (t) => {
  const sandbox = await startSandbox();
  t.after(() => sandbox.close());
  await admin(sandbox, "PUT", "/sandbox/config", { fault_rate: 1, fault_kinds: ["500"] });
  await assert.rejects(
    sdkFor(sandbox).ats.getJobs(),
    (err: unknown) => err instanceof KomboAtsError && err.statusCode === 500 && err.error.code === "PLATFORM.UNKNOWN_ERROR",
  );

  await admin(sandbox, "PUT", "/sandbox/config", { fault_kinds: ["503"] });
  await assert.rejects(sdkFor(sandbox).ats.getJobs(), (err: unknown) => {
    assert.ok(err instanceof KomboAtsError);
    assert.equal(err.statusCode, 503);
    assert.equal(err.error.code, "REMOTE.SERVICE_UNAVAILABLE");
    assert.equal(err.headers.get("retry-after"), "1");
    return true;
  });
  await assert.rejects(
    sdkFor(sandbox, null).general.checkApiKey(),
    (err: unknown) => err instanceof KomboGeneralError && err.error.code === "PLATFORM.UNKNOWN_ERROR",
  );

  await admin(sandbox, "PUT", "/sandbox/config", { fault_kinds: ["502"] });
  const res = await get(sandbox, "/ats/jobs");
  assert.equal(res.status, 502);
  assert.equal(res.headers.get("content-type"), "text/plain; charset=utf-8");
  assert.equal(await res.text(), "502 Bad Gateway");
  await assert.rejects(sdkFor(sandbox).ats.getJobs(), (err: unknown) => err instanceof KomboDefaultError && err.statusCode === 502);

  await admin(sandbox, "PUT", "/sandbox/config", { fault_rate: 0 });
  assert.equal((await get(sandbox, "/ats/jobs")).status, 200);
});

test("faults: a dropped connection and a held request that times out (504), released early on close", async (t) => {
  const sandbox = await startSandbox();
  t.after(() => sandbox.close());
  await admin(sandbox, "PUT", "/sandbox/config", { fault_rate: 1, fault_kinds: ["drop"] });
  await assert.rejects(get(sandbox, "/ats/jobs"), (err: unknown) => err instanceof TypeError && /fetch failed/.test(err.message));

  await admin(sandbox, "PUT", "/sandbox/config", { fault_kinds: ["timeout"], fault_timeout_ms: 300 });
  const started = Date.now();
  const res = await get(sandbox, "/ats/jobs");
  assert.ok(Date.now() - started >= 290);
  assert.equal(res.status, 504);
  assert.equal(((await res.json()) as { error: { code: string } }).error.code, "PLATFORM.TASK_TIMED_OUT");

  // A client that gives up first frees the request; a closing server does not wait for the hold.
  await admin(sandbox, "PUT", "/sandbox/config", { fault_timeout_ms: 60_000 });
  await assert.rejects(
    get(sandbox, "/ats/jobs", { signal: AbortSignal.timeout(200) }),
    (err: unknown) => (err as Error).name === "TimeoutError",
  );
  // The client's going away released the hold (no 60 s wait on the server).
  while (sandbox.context.faults.holding > 0) await new Promise((r) => setTimeout(r, 10));
  const held = get(sandbox, "/ats/jobs");
  while (sandbox.context.faults.holding === 0) await new Promise((r) => setTimeout(r, 10));
  const closing = Date.now();
  await sandbox.close();
  assert.ok(Date.now() - closing < 5000, "close must not wait for the fault's 60 s");
  // Answered by the close (not by the 60 s hold), and told to close its connection.
  const answer = await held;
  assert.equal(answer.status, 504);
  assert.equal(answer.headers.get("connection"), "close");
  await answer.arrayBuffer();
});

test("fail_next fails exactly the next N matching requests, kinds in turn; fault_path_prefix narrows faults", async (t) => {
  const sandbox = await startSandbox();
  t.after(() => sandbox.close());
  await admin(sandbox, "PUT", "/sandbox/config", { fail_next: 3, fault_kinds: ["503", "500"], fault_path_prefix: "/ats/applications" });
  const statuses: number[] = [];
  for (const path of ["/ats/jobs", "/ats/applications", "/ats/tags", "/ats/applications", "/ats/applications", "/ats/applications"]) {
    const res = await get(sandbox, path);
    statuses.push(res.status);
    await res.arrayBuffer();
  }
  assert.deepEqual(statuses, [200, 503, 200, 500, 503, 200]);
  const { body } = await admin<{ fail_next: number }>(sandbox, "GET", "/sandbox/config");
  assert.equal(body.fail_next, 0);
});

test("a fault rate set at start-up makes every call fail; bad config updates are refused", async (t) => {
  const sandbox = await startSandbox({ faultRate: 1 });
  t.after(() => sandbox.close());
  const statuses = await Promise.all(Array.from({ length: 6 }, () => get(sandbox, "/ats/jobs").then((r) => r.status)));
  assert.ok(
    statuses.every((s) => s === 500 || s === 503),
    statuses.join(),
  );
  const bad = await admin<{ error: { code: string } }>(sandbox, "PUT", "/sandbox/config", { fault_rate: 2, fault_kinds: ["explode"] });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error.code, "PLATFORM.INPUT_INVALID");
  const unknown = await admin(sandbox, "PUT", "/sandbox/config", { fault_rat: 0 });
  assert.equal(unknown.status, 400);
});
