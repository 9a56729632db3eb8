import assert from "node:assert/strict";
import { test } from "node:test";
import { buildRecruitingApp } from "../../../src/services/recruiting/app.js";
import { buildTokenApp } from "../../../src/services/token/app.js";
import { openDatabase, type Database } from "../../../src/shared/db/database.js";
import { isStorageUnavailable } from "../../../src/shared/db/unavailable.js";
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
    assert.equal((await app.inject({ method: "GET", url: "/readyz" })).statusCode, 503);
  });
}

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
  assert.equal(isStorageUnavailable(wrap(Object.assign(new Error("duplicate key"), { code: "23505" }))), false);
  assert.equal(isStorageUnavailable(wrap(Object.assign(new Error("invalid byte sequence"), { code: "22021" }))), false);
  assert.equal(isStorageUnavailable(new TypeError("x is undefined")), false);
});
