/**
 * Data retention (issue 41) over real HTTP, on PGlite and Postgres: the policy's GET/PUT validate
 * and are org-scoped; a retention run at a fixed `now` erases the candidates its policy makes due
 * and not others, purges operational rows older than their retention, keeps newer ones, and
 * records itself with its counts by kind.
 */
import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { sql } from "drizzle-orm";
import { Hirebridge } from "../../../src/client/index.js";
import { candidateErasure, recruitingOwnership } from "../../../src/runtime/wiring.js";
import { buildRecruitingApp } from "../../../src/services/recruiting/app.js";
import { createRetention, type Retention } from "../../../src/services/retention/module.js";
import { latestRuns } from "../../../src/services/retention/retention.repository.js";
import type { App } from "../../../src/shared/http/create-app.js";
import { openJobQueue, QUEUES } from "../../../src/shared/jobs/queue.js";
import { jobQueueSchema } from "../../../src/shared/db/pg-schemas.js";
import { startTestIdentity, type TestIdentity, type TestLogin } from "../../helpers/auth.js";
import { silentLogger, testConfig } from "../../helpers/config.js";
import { DB_KINDS, freshDatabase } from "../../helpers/db.js";
import { eventually } from "../../helpers/stack.js";

type Answer = { status: number; body: Record<string, unknown> };
const DAY = 86_400_000;

for (const kind of DB_KINDS) {
  describe(`data retention [${kind}]`, () => {
    let database: Awaited<ReturnType<typeof freshDatabase>>;
    let identity: TestIdentity;
    let app: App;
    let retention: Retention;
    let api = "";

    before(async () => {
      database = await freshDatabase(kind);
      identity = await startTestIdentity(database);
      retention = createRetention({
        config: testConfig(),
        database,
        logger: silentLogger(),
        erase: candidateErasure(database, testConfig()),
      });
      app = await buildRecruitingApp({
        config: testConfig(),
        database,
        logger: silentLogger(),
        verify: identity.verify,
        ownership: recruitingOwnership(database),
        modules: [retention.routes],
      });
      await app.listen({ host: "127.0.0.1", port: 0 });
      api = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1`;
    });
    after(async () => {
      await app?.close();
      await identity?.close();
      await database?.dispose();
    });

    async function call(user: TestLogin, method: string, path: string, body?: unknown, org = user.orgId): Promise<Answer> {
      const res = await fetch(`${api}/org/${org}${path}`, {
        method,
        headers: { authorization: `Bearer ${user.accessToken}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    }

    async function candidate(user: TestLogin, positionId: string, n: string, extra: object = {}): Promise<string> {
      const body = { name: `Person ${n}`, email: `p${n}@example.com`, phone: "+49 30 1234", language: "en", ...extra };
      const res = await call(user, "POST", `/positions/${positionId}/`, body);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body["id"] as string;
    }

    async function position(user: TestLogin): Promise<string> {
      const res = await call(user, "POST", "/position", { name: "Engineer", state: "active" });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body["id"] as string;
    }

    const remaining = async (ids: string[]) => {
      const result = await database.db.execute(sql`select id from candidates`);
      const present = new Set((result as unknown as { rows: { id: string }[] }).rows.map((r) => r.id));
      return ids.filter((id) => present.has(id));
    };

    test("the policy: defaults, a partial PUT, validation with the spec's error shape, org-scoped", async () => {
      const a = await identity.login();
      const b = await identity.login();
      const initial = await call(a, "GET", "/data-retention");
      assert.equal(initial.status, 200);
      assert.deepEqual(initial.body, {
        candidate_days_after_last_change: null,
        candidate_days_after_rejection: null,
        candidate_days_after_hire: null,
        deleted_integration_days: 14,
        deleted_application_days: 14,
        updated_at: null,
      });
      const put = await call(a, "PUT", "/data-retention", { candidate_days_after_rejection: 30, deleted_integration_days: 7 });
      assert.equal(put.status, 200, JSON.stringify(put.body));
      assert.equal(put.body["candidate_days_after_rejection"], 30);
      assert.equal(put.body["deleted_integration_days"], 7);
      assert.equal(put.body["candidate_days_after_hire"], null);
      assert.equal(typeof put.body["updated_at"], "string");
      // A second PUT changes only what it sends; null turns a rule off.
      const second = await call(a, "PUT", "/data-retention", { candidate_days_after_hire: 365, candidate_days_after_rejection: null });
      assert.equal(second.body["candidate_days_after_hire"], 365);
      assert.equal(second.body["candidate_days_after_rejection"], null);
      assert.equal(second.body["deleted_integration_days"], 7);
      assert.deepEqual((await call(a, "GET", "/data-retention")).body, second.body);

      for (const bad of [
        { candidate_days_after_hire: -1 },
        { deleted_integration_days: null },
        { candidate_days_after_hire: "x" },
        { keep: 1 },
      ]) {
        const res = await call(a, "PUT", "/data-retention", bad);
        assert.equal(res.status, 422, JSON.stringify(bad));
        const detail = res.body["detail"] as { loc: unknown[]; msg: string; type: string }[];
        assert.ok(Array.isArray(detail) && detail.length > 0 && Array.isArray(detail[0]!.loc) && typeof detail[0]!.msg === "string");
      }
      assert.equal((await call(a, "GET", "/data-retention")).body["deleted_integration_days"], 7, "a refused PUT changes nothing");

      // Another organisation's policy: refused either way, and b's own is untouched.
      assert.equal((await call(b, "GET", "/data-retention", undefined, a.orgId)).status, 403);
      assert.equal((await call(b, "PUT", "/data-retention", { candidate_days_after_hire: 0 }, a.orgId)).status, 403);
      assert.equal((await call(a, "GET", "/data-retention")).body["candidate_days_after_hire"], 365);
      assert.equal((await call(b, "GET", "/data-retention")).body["updated_at"], null);
    });

    test("the SDK: hb.dataRetention.get and put", async () => {
      const user = await identity.login();
      const hb = new Hirebridge({
        authUrl: identity.authUrl,
        apiUrl: api,
        orgId: user.orgId,
        credentials: { username: user.username, password: user.password },
      });
      assert.equal((await hb.dataRetention.get()).candidate_days_after_last_change, null);
      const put = await hb.dataRetention.put({ candidate_days_after_last_change: 730 });
      assert.equal(put.candidate_days_after_last_change, 730);
      assert.deepEqual(await hb.dataRetention.get(), put);
      await assert.rejects(hb.dataRetention.put({ deleted_application_days: -1 }), (err: { status?: number }) => err.status === 422);
    });

    test("a retention of 0 days erases the due candidates at the next run, and not others", async () => {
      const a = await identity.login();
      const other = await identity.login();
      const pa = await position(a);
      const po = await position(other);
      const rejected = await candidate(a, pa, "r1");
      const hired = await candidate(a, pa, "h1", { hired: true });
      const active = await candidate(a, pa, "a1");
      const otherRejected = await candidate(other, po, "o1");
      await database.db.execute(sql`update candidates set state = 'rejected' where id in (${rejected}, ${otherRejected})`);
      assert.equal((await call(a, "PUT", "/data-retention", { candidate_days_after_rejection: 0 })).status, 200);
      // The other organisation keeps rejected candidates for a year.
      assert.equal((await call(other, "PUT", "/data-retention", { candidate_days_after_rejection: 365 })).status, 200);

      const listed = async () => ((await call(a, "GET", `/positions/${pa}/`)).body as unknown as { id: string }[]).map((c) => c.id).sort();
      assert.equal((await listed()).length, 3); // the list answer is cached now
      const run = await retention.run(new Date(Date.now() + 1000));
      assert.equal(run.counts["candidates.rejection"], 1);
      assert.deepEqual(await remaining([rejected, hired, active, otherRejected]), [hired, active, otherRejected]);
      assert.deepEqual(await listed(), [hired, active].sort(), "the cached list answer does not outlive the erasure");

      // Hires after 0 days: the hired one goes at the next run, the active one stays.
      assert.equal((await call(a, "PUT", "/data-retention", { candidate_days_after_hire: 0 })).status, 200);
      const next = await retention.run(new Date(Date.now() + 1000));
      assert.equal(next.counts["candidates.hire"], 1);
      assert.deepEqual(await remaining([hired, active, otherRejected]), [active, otherRejected]);
      assert.equal((await call(a, "GET", `/positions/${pa}/candidates/${hired}/`)).status, 404);

      const [last] = await latestRuns(database.db, 1);
      assert.equal(last!.id, next.id);
      assert.equal(last!.counts["candidates"], 1);
      assert.equal(last!.error, null);
    });

    test("operational rows older than their retention are purged, newer ones kept", async () => {
      const config = testConfig();
      const now = new Date();
      const old = (days: number) => new Date(now.getTime() - (days + 1) * DAY).toISOString();
      const recent = (days: number) => new Date(now.getTime() - Math.max(0, days - 1) * DAY).toISOString();
      const org = "00000000-0000-4000-8000-000000000001";
      const ev = config.RETENTION_WEBHOOK_EVENTS_DAYS;
      await database.db.execute(sql`
        insert into webhook_events (id, type, payload, status, received_at) values
          ('ev-old', 't', '{}', 'processed', ${old(ev)}), ('ev-new', 't', '{}', 'processed', ${recent(ev)}),
          ('ev-old-queued', 't', '{}', 'queued', ${old(ev)})`);
      const sr = config.RETENTION_SYNC_RUNS_DAYS;
      await database.db.execute(sql`
        insert into sync_runs (integration_id, org_id, model, type, trigger, state, created_at) values
          ('sr-old', ${org}, 'jobs', 'FULL', 'test', 'succeeded', ${old(sr)}),
          ('sr-new', ${org}, 'jobs', 'FULL', 'test', 'succeeded', ${recent(sr)})`);
      const wb = config.RETENTION_WRITE_BACKS_DAYS;
      const ids = "application_id, position_id, candidate_id, interview_id, outcome";
      const vals = (key: string) => sql`${key}, ${org}, 'i', 'app', gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), 'passed'`;
      await database.db.execute(sql`
        insert into write_backs (event_key, org_id, integration_id, ${sql.raw(ids)}, state, updated_at) values
          (${vals("wb-old")}, 'done', ${old(wb)}), (${vals("wb-new")}, 'done', ${recent(wb)}), (${vals("wb-old-pending")}, 'pending', ${old(wb)})`);
      const ac = config.RETENTION_ACTIVITY_DAYS;
      await database.db.execute(sql`
        insert into upstream_call_failures (integration_id, org_id, source, operation, error, last_at) values
          ('uf-old', ${org}, 'sync', 'GET /ats/jobs', 'e', ${old(ac)}), ('uf-new', ${org}, 'sync', 'GET /ats/jobs', 'e', ${recent(ac)})`);
      const ik = config.RETENTION_IDEMPOTENCY_KEYS_HOURS / 24;
      await database.db.execute(sql`
        insert into idempotency_keys (organization_id, caller, key, fingerprint, status, response, created_at) values
          (${org}, 'c', 'ik-old', 'f', 200, '{}', ${old(ik)}), (${org}, 'c', 'ik-new', 'f', 200, '{}', ${now.toISOString()})`);

      const run = await retention.run(now);
      for (const k of ["webhook_events", "sync_runs", "write_backs", "activity", "idempotency_keys"]) assert.equal(run.counts[k], 1, k);
      const left = async (q: ReturnType<typeof sql>) =>
        ((await database.db.execute(q)) as unknown as { rows: { k: string }[] }).rows.map((r) => r.k).sort();
      assert.deepEqual(await left(sql`select id as k from webhook_events where id like 'ev-%'`), ["ev-new", "ev-old-queued"]);
      assert.deepEqual(await left(sql`select integration_id as k from sync_runs where integration_id like 'sr-%'`), ["sr-new"]);
      assert.deepEqual(await left(sql`select event_key as k from write_backs`), ["wb-new", "wb-old-pending"]);
      assert.deepEqual(await left(sql`select integration_id as k from upstream_call_failures`), ["uf-new"]);
      assert.deepEqual(await left(sql`select key as k from idempotency_keys where key like 'ik-%'`), ["ik-new"]);
    });
    test("the job runs on the queue: a job of the data-retention queue makes a recorded run", async () => {
      const queue = await openJobQueue(database, silentLogger(), { deleteAfterSeconds: 3600 });
      try {
        const before = (await latestRuns(database.db, 1))[0]?.id;
        await retention.startJob(queue);
        assert.ok(await queue.send(QUEUES.retention, {}));
        const run = await eventually("a retention run from the queue", async () => {
          const [last] = await latestRuns(database.db, 1);
          return last && last.id !== before && last.counts["webhook_events"] !== undefined ? last : undefined;
        });
        assert.equal(run.error, null);
        const boss = kind === "pglite" ? "pgboss" : jobQueueSchema(database.schema);
        const result = await database.db.execute(
          sql`select deletion_seconds as s from ${sql.raw(boss)}.queue where name = ${QUEUES.retention}`,
        );
        const [options] = (result as unknown as { rows: { s: number }[] }).rows;
        assert.equal(options?.s, 3600, "completed and failed jobs are kept JOB_RETENTION_DAYS");
      } finally {
        await queue.stop();
      }
    });
  });
}
