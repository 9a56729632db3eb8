import assert from "node:assert/strict";
import { test } from "node:test";
import { buildRecruitingApp } from "../../../src/services/recruiting/app.js";
import { buildTokenApp } from "../../../src/services/token/app.js";
import { openDatabase, type Database } from "../../../src/shared/db/database.js";
import { isStorageUnavailable } from "../../../src/shared/db/unavailable.js";
import { READINESS_CACHE_MS, readinessOf } from "../../../src/shared/http/probes.js";
import { startTestIdentity } from "../../helpers/auth.js";
import { silentLogger, testConfig } from "../../helpers/config.js";
import { freshDatabase } from "../../helpers/db.js";
import { freePort } from "../../helpers/ports.js";

/** A database that cannot be reached: PGlite closed, or Postgres on a port where nothing listens. */
async function unreachable(kind: "pglite" | "postgres"): Promise<Database> {
  if (kind === "pglite") {
    const db = await openDatabase({ dataDir: "memory://" });
    await db.close();
    return db;
  }
  return openDatabase({ url: `postgres://postgres@127.0.0.1:${await freePort()}/test`, poolSize: 1 });
}

for (const kind of ["pglite", "postgres"] as const) {
  test(`[${kind}] unreachable storage: the recruiting API answers 503 with Retry-After and {detail}, readiness 503`, async (t) => {
    const identity = await startTestIdentity((await freshDatabase("pglite")) as Database);
    t.after(() => identity.close());
    const me = await identity.login();
    const database = await unreachable(kind);
    t.after(() => database.close());
    const app = await buildRecruitingApp({ config: testConfig(), database, logger: silentLogger(), verify: identity.verify });
    t.after(() => app.close());
    const res = await app.inject({
      method: "GET",
      url: `/api/v1/org/${me.orgId}/position`,
      headers: { authorization: `Bearer ${me.accessToken}` },
    });
    assert.equal(res.statusCode, 503, res.body);
    assert.equal(res.headers["retry-after"], "5");
    assert.deepEqual(res.json(), { detail: "Service temporarily unavailable: storage cannot be reached; retry later" });
    const ready = await app.inject({ method: "GET", url: "/readyz" });
    assert.equal(ready.statusCode, 503);
    assert.deepEqual(ready.json(), { status: "unavailable", checks: { storage: "unavailable" } });
    // Liveness is the process alone: an outage of storage must not get the instance restarted.
    const live = await app.inject({ method: "GET", url: "/healthz" });
    assert.equal(live.statusCode, 200);
    assert.deepEqual(live.json(), { status: "ok" });
  });
}

test("/readyz: one check per second whatever the probe rate, and probes during a check share it", async (t) => {
  let checks = 0;
  let clock = 0;
  let release: (() => void) | undefined;
  const readiness = readinessOf(
    [
      {
        name: "storage",
        check: () =>
          new Promise<void>((resolve) => {
            checks++;
            release = resolve;
          }),
      },
      { name: "cache", check: async () => Promise.reject(new Error("down")), optional: true },
    ],
    () => {},
    () => clock,
  );
  const storm = Array.from({ length: 50 }, () => readiness());
  release?.();
  const answers = await Promise.all(storm);
  assert.equal(checks, 1, "fifty concurrent probes, one check");
  assert.deepEqual(answers[0], { ready: true, checks: { storage: "ok", cache: "unavailable" } }, "an optional check does not decide");
  clock += READINESS_CACHE_MS - 1;
  await readiness();
  assert.equal(checks, 1, "answered from the last second's check");
  clock += 1;
  const next = readiness();
  release?.();
  await next;
  assert.equal(checks, 2, "checked again after a second");
  t.diagnostic("readiness cached and single-flight");
});

test("unreachable storage: the token endpoint answers 503 temporarily_unavailable with Retry-After", async (t) => {
  const database = await freshDatabase("pglite");
  const { app } = await buildTokenApp({ config: testConfig({ PASSWORD_HASH_SCRYPT_N: 1024 }), logger: silentLogger(), database });
  t.after(() => app.close());
  await database.close();
  const res = await app.inject({
    method: "POST",
    url: "/realms/hirebridge/protocol/openid-connect/token",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    payload: "grant_type=password&client_id=hirebridge&username=demo&password=demo-password",
  });
  assert.equal(res.statusCode, 503, res.body);
  assert.equal(res.headers["retry-after"], "5");
  assert.equal(res.json().error, "temporarily_unavailable");
});

test("isStorageUnavailable: outages through Drizzle's and pg-boss's wrapping, not bugs or bad input", () => {
  const wrap = (cause: unknown) => Object.assign(new Error("Failed query: select 1"), { cause });
  assert.equal(isStorageUnavailable(wrap(Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }))), true);
  assert.equal(isStorageUnavailable(new AggregateError([Object.assign(new Error("x"), { code: "ECONNREFUSED" })])), true);
  assert.equal(isStorageUnavailable(wrap(new Error("Connection terminated unexpectedly"))), true);
  assert.equal(
    isStorageUnavailable(wrap(Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" }))),
    true,
  );
  assert.equal(isStorageUnavailable(wrap(Object.assign(new Error("the database system is starting up"), { code: "57P03" }))), true);
  assert.equal(isStorageUnavailable(Object.assign(new Error("Connection is closed."), {})), true);
  // The bounds of DATABASE_STATEMENT_TIMEOUT_MS and DATABASE_CONNECT_TIMEOUT_MS.
  assert.equal(isStorageUnavailable(wrap(new Error("Query read timeout"))), true);
  assert.equal(
    isStorageUnavailable(wrap(Object.assign(new Error("canceling statement due to statement timeout"), { code: "57014" }))),
    true,
  );
  assert.equal(isStorageUnavailable(new Error("Connection terminated due to connection timeout")), true);
  assert.equal(isStorageUnavailable(wrap(new Error("timeout expired"))), true);
  assert.equal(isStorageUnavailable(new Error("timeout exceeded when trying to connect")), true);
  assert.equal(isStorageUnavailable(wrap(Object.assign(new Error("duplicate key"), { code: "23505" }))), false);
  assert.equal(isStorageUnavailable(wrap(Object.assign(new Error("invalid byte sequence"), { code: "22021" }))), false);
  assert.equal(isStorageUnavailable(new TypeError("x is undefined")), false);
});
