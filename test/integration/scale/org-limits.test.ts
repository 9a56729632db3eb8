/**
 * Issue 43, limits at the edge: besides each caller's own rate limit (RATE_LIMIT_PER_MINUTE, per
 * token subject), an organisation's users and service accounts together get RATE_LIMIT_ORG_PER_MINUTE,
 * so one customer's scripts cannot take an instance from the others. Over real HTTP, in-process
 * counts and counts shared through Redis.
 */
import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { buildRecruitingApp } from "../../../src/services/recruiting/app.js";
import { startTestIdentity, type TestIdentity } from "../../helpers/auth.js";
import { silentLogger, testConfig } from "../../helpers/config.js";
import { freshDatabase, TEST_REDIS_URL } from "../../helpers/db.js";

describe("rate limits per organisation [postgres]", () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let identity: TestIdentity;
  before(async () => {
    database = await freshDatabase("postgres");
    identity = await startTestIdentity(database);
  });
  after(async () => {
    await identity.close();
    await database.dispose();
  });

  /** A recruiting API over HTTP with these limits; answers its GET /org_id as one caller sees it. */
  async function api(overrides: Record<string, string | number>) {
    const app = await buildRecruitingApp({ config: testConfig(overrides), database, logger: silentLogger(), verify: identity.verify });
    await app.listen({ host: "127.0.0.1", port: 0 });
    const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1/org_id`;
    const get = async (token: string) => {
      const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
      return { status: res.status, retryAfter: res.headers.get("retry-after"), body: (await res.json()) as { detail?: string } };
    };
    return { app, get };
  }

  test("an organisation's callers share its limit: past it 429 with Retry-After; another organisation is not affected", async (t) => {
    const { app, get } = await api({ RATE_LIMIT_PER_MINUTE: 3, RATE_LIMIT_ORG_PER_MINUTE: 5 });
    t.after(() => app.close());
    const org = randomUUID();
    const first = await identity.login({ orgId: org });
    const second = await identity.login({ orgId: org });
    const other = await identity.login();
    for (let i = 0; i < 3; i++) assert.equal((await get(first.accessToken)).status, 200);
    const own = await get(first.accessToken);
    assert.equal(own.status, 429, "the caller's own limit");
    assert.match(own.body.detail ?? "", /3 requests per minute;/);
    // The caller's refused request did not count for the organisation: 3 of its 5 are spent.
    for (let i = 0; i < 2; i++) assert.equal((await get(second.accessToken)).status, 200);
    const shared = await get(second.accessToken);
    assert.equal(shared.status, 429, "the organisation's limit, though this caller sent only 2");
    assert.ok(Number(shared.retryAfter) > 0, `Retry-After: ${shared.retryAfter}`);
    assert.match(shared.body.detail ?? "", /5 requests per minute for the organisation/);
    assert.equal((await get(other.accessToken)).status, 200, "another organisation keeps its own count");
  });

  test("with Redis two instances count one organisation together", async (t) => {
    const overrides = { RATE_LIMIT_PER_MINUTE: 0, RATE_LIMIT_ORG_PER_MINUTE: 4, REDIS_URL: TEST_REDIS_URL };
    const one = await api(overrides);
    const two = await api(overrides);
    t.after(async () => {
      await one.app.close();
      await two.app.close();
    });
    const org = randomUUID();
    const users = [await identity.login({ orgId: org }), await identity.login({ orgId: org })];
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await (i % 2 ? two : one).get(users[i % 2]!.accessToken)).status);
    assert.deepEqual(statuses, [200, 200, 200, 200, 429]);
  });
});
