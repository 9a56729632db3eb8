import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import type { AddressInfo } from "node:net";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, test } from "node:test";
import type { AuditEntryView, AuditLogPage, AuditVerify } from "../../../src/contracts/recruiting/audit-log.js";
import { acquireWebhooksOut, recruitingOwnership } from "../../../src/runtime/wiring.js";
import { auditLogRoutes, createAuditLog, purgeExpired, verifyChain } from "../../../src/services/audit/index.js";
import { systemActor } from "../../../src/shared/auth/audit-actor.js";
import { buildRecruitingApp } from "../../../src/services/recruiting/app.js";
import type { App } from "../../../src/shared/http/create-app.js";
import { startTestIdentity, type TestIdentity, type TestLogin } from "../../helpers/auth.js";
import { silentLogger, testConfig } from "../../helpers/config.js";
import { describeEachDatabase } from "../../helpers/db.js";
import { newCandidate } from "./recruiting-harness.js";

const BIN = join(resolve(fileURLToPath(new URL("../../..", import.meta.url))), "bin", "hirebridge.js");

/** The real `hirebridge` bin, logged in by environment, against this file's API; answers its exit code and output. */
function runCli(args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { PATH: process.env["PATH"] ?? "", HOME: "/nonexistent", ...env } });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d));
    child.stderr.on("data", (d: Buffer) => (out += d));
    child.on("error", fail);
    child.on("close", (code) => done({ code, out }));
    child.stdin.end();
  });
}

const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString("utf8")) as Record<string, string>;

describeEachDatabase("audit log", (getDb) => {
  let identity: TestIdentity;
  let app: App;
  let release: () => Promise<void>;
  let apiUrl: string;
  let me: TestLogin;
  const ids: Record<string, string> = {};
  const cand = newCandidate({ name: "Grace Hopper-Audit" });

  const call = async (who: TestLogin, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${apiUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${who.accessToken}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, text, json: () => JSON.parse(text), headers: res.headers };
  };
  const ok = async <T>(who: TestLogin, method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<T> => {
    const res = await call(who, method, path, body, headers);
    assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${res.text}`);
    return res.json() as T;
  };
  const log = (query = "") => ok<AuditLogPage>(me, "GET", `/org/${me.orgId}/audit-log${query}`);

  before(async () => {
    const database = getDb();
    identity = await startTestIdentity(database);
    const config = testConfig({ WEBHOOK_TARGETS: "any" });
    const logger = silentLogger();
    const webhooks = await acquireWebhooksOut({ config, database, logger, deliver: false });
    release = webhooks.release;
    app = await buildRecruitingApp({
      config,
      database,
      logger,
      verify: identity.verify,
      ownership: recruitingOwnership(database),
      events: webhooks.module.events,
      modules: [webhooks.module.routes, auditLogRoutes(database)],
      audit: createAuditLog(),
    });
    await app.listen({ host: "127.0.0.1", port: 0 });
    apiUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1`;
    me = await identity.login();
    // The test's actions, over HTTP: position, candidate, grading, correction, webhook endpoint.
    const org = `/org/${me.orgId}`;
    ids["position"] = (await ok<{ id: string }>(me, "POST", `${org}/position`, { name: "Audited" })).id;
    const base = `${org}/positions/${ids["position"]}/`;
    ids["candidate"] = (await ok<{ id: string }>(me, "POST", base, cand, { "x-request-id": "audit-test-create" })).id;
    const interview = `${base}candidates/${ids["candidate"]}/interview/`;
    ids["interview"] = (await ok<{ id: string }>(me, "PUT", interview, { status: "completed", score: 80, feedback: "Clear answers" })).id;
    await ok(me, "PUT", interview, { status: "graded" });
    await ok(me, "POST", `${interview}correction`, { score: 65, reason: "Rubric misread" });
    ids["endpoint"] = (await ok<{ id: string }>(me, "POST", `${org}/webhook-endpoints`, { url: "https://hooks.example.com/x" })).id;
  });
  after(async () => {
    await app?.close();
    await release?.();
    await identity?.close();
  });

  test("each action is listed, newest first, with its actor, ids, request and scores before and after", async () => {
    const { items, next_cursor } = await log();
    assert.equal(next_cursor, null);
    assert.deepEqual(
      items.map((e) => e.action),
      ["webhook_endpoint.created", "interview.corrected", "interview.graded", "interview.updated", "candidate.created", "position.created"],
    );
    assert.deepEqual(
      items.map((e) => e.seq),
      [6, 5, 4, 3, 2, 1],
    );
    const claims = claimsOf(me.accessToken);
    for (const e of items) {
      assert.deepEqual(e.actor, { sub: claims["sub"], client_id: claims["azp"] ?? null });
      assert.equal(e.source_address, "127.0.0.1");
      assert.match(e.hash, /^[0-9a-f]{64}$/);
    }
    const [endpoint, corrected, graded, reported, created, position] = items as [AuditEntryView, ...AuditEntryView[]];
    assert.deepEqual(endpoint.resource_ids, [ids["endpoint"]]);
    assert.deepEqual(
      [corrected!.resource_type, corrected!.resource_ids],
      ["interview", [ids["interview"], ids["candidate"], ids["position"]]],
    );
    assert.deepEqual([corrected!.score_before, corrected!.score_after], [80, 65]);
    assert.deepEqual([graded!.score_before, graded!.score_after], [80, 80]);
    assert.deepEqual([reported!.score_before, reported!.score_after], [null, 80]);
    assert.deepEqual(
      [created!.resource_type, created!.resource_ids, created!.request_id],
      ["candidate", [ids["candidate"], ids["position"]], "audit-test-create"],
    );
    assert.deepEqual([position!.resource_type, position!.resource_ids, position!.prev_hash], ["position", [ids["position"]], ""]);
    assert.equal(created!.prev_hash, position!.hash);
  });

  test("keyset pages cover the log once; filters narrow it; JSON lines export it", async () => {
    const seen: number[] = [];
    let cursor: string | null = "";
    while (cursor !== null) {
      const page: AuditLogPage = await log(`?limit=4${cursor ? `&cursor=${cursor}` : ""}`);
      assert.ok(page.items.length <= 4);
      seen.push(...page.items.map((e) => e.seq));
      cursor = page.next_cursor;
    }
    assert.deepEqual(seen, [6, 5, 4, 3, 2, 1]);
    const actions = async (q: string) => (await log(q)).items.map((e) => e.action);
    assert.deepEqual(await actions("?action=interview.corrected"), ["interview.corrected"]);
    assert.deepEqual(await actions("?resource_type=interview&limit=2"), ["interview.corrected", "interview.graded"]);
    assert.deepEqual(await actions(`?resource_id=${ids["candidate"]}`), [
      "interview.corrected",
      "interview.graded",
      "interview.updated",
      "candidate.created",
    ]);
    assert.equal((await actions(`?actor=${claimsOf(me.accessToken)["sub"]}`)).length, 6);
    assert.deepEqual(await actions("?actor=someone-else"), []);
    assert.deepEqual(await actions(`?since=${new Date(Date.now() + 60_000).toISOString()}`), []);
    assert.equal((await actions(`?until=${new Date(Date.now() + 60_000).toISOString()}&since=2020-01-01T00:00:00Z`)).length, 6);
    assert.equal((await call(me, "GET", `/org/${me.orgId}/audit-log?cursor=bm9wZQ`)).status, 422);

    const jsonl = await call(me, "GET", `/org/${me.orgId}/audit-log?format=jsonl&limit=5`);
    assert.equal(jsonl.status, 200);
    assert.match(jsonl.headers.get("content-type") ?? "", /^application\/x-ndjson/);
    const lines = jsonl.text.trimEnd().split("\n");
    assert.deepEqual(
      lines.map((l) => (JSON.parse(l) as AuditEntryView).seq),
      [6, 5, 4, 3, 2],
    );
    assert.ok(jsonl.headers.get("x-next-cursor"));
    const byAccept = await call(me, "GET", `/org/${me.orgId}/audit-log`, undefined, { accept: "application/x-ndjson" });
    assert.equal(byAccept.text.trimEnd().split("\n").length, 6);
  });

  test("another organisation cannot read the log, and its own holds none of these entries", async () => {
    const other = await identity.login();
    assert.equal((await call(other, "GET", `/org/${me.orgId}/audit-log`)).status, 403);
    assert.equal((await call(other, "GET", `/org/${me.orgId}/audit-log/verify`)).status, 403);
    assert.deepEqual((await ok<AuditLogPage>(other, "GET", `/org/${other.orgId}/audit-log`)).items, []);
    // No API changes or deletes an entry.
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
      assert.equal((await call(me, method, `/org/${me.orgId}/audit-log`)).status, 404, method);
    }
  });

  test("no personal data of the candidate in any audit row", async () => {
    const rows = await getDb().query<{ row: string }>("select row_to_json(a)::text as row from audit_log a");
    assert.ok(rows.length >= 6);
    for (const { row } of rows) {
      for (const secret of [cand.email, cand.name, cand.phone, "Clear answers", "Rubric misread"]) assert.ok(!row.includes(secret), row);
    }
  });

  test("verify passes, then names the entry changed by hand in SQL; the CLI exits non-zero", async () => {
    const verified = await ok<AuditVerify>(me, "GET", `/org/${me.orgId}/audit-log/verify`);
    assert.deepEqual(verified, { ok: true, checked: 6, first_seq: 1, last_seq: 6, broken: null });
    const cliEnv = {
      HIREBRIDGE_AUTH_URL: identity.authUrl,
      HIREBRIDGE_API_URL: apiUrl,
      HIREBRIDGE_USERNAME: me.username,
      HIREBRIDGE_PASSWORD: me.password,
    };
    const holds = await runCli(["audit", "verify"], cliEnv);
    assert.equal(holds.code, 0, holds.out);

    await getDb().query("update audit_log set score_after = 95 where organization_id = $1 and seq = 5", [me.orgId]);
    const broken = await ok<AuditVerify>(me, "GET", `/org/${me.orgId}/audit-log/verify`);
    const corrected = (await log("?action=interview.corrected")).items[0]!;
    assert.equal(broken.ok, false);
    assert.deepEqual([broken.checked, broken.broken?.seq, broken.broken?.id], [4, 5, corrected.id]);
    assert.match(broken.broken!.reason, /does not match its hash/);
    const fails = await runCli(["audit", "verify"], cliEnv);
    assert.equal(fails.code, 1, fails.out);
    assert.match(fails.out, /broken at entry 5/);
    await getDb().query("update audit_log set score_after = 65 where organization_id = $1 and seq = 5", [me.orgId]);
  });

  test("concurrent changes of one organisation keep one chain", async () => {
    const busy = await identity.login();
    await Promise.all(Array.from({ length: 12 }, (_, i) => ok(busy, "POST", `/org/${busy.orgId}/position`, { name: `Parallel ${i}` })));
    const { items } = await ok<AuditLogPage>(busy, "GET", `/org/${busy.orgId}/audit-log`);
    assert.deepEqual(
      items.map((e) => e.seq),
      Array.from({ length: 12 }, (_, i) => 12 - i),
    );
    assert.deepEqual(await ok<AuditVerify>(busy, "GET", `/org/${busy.orgId}/audit-log/verify`), {
      ok: true,
      checked: 12,
      first_seq: 1,
      last_seq: 12,
      broken: null,
    });
  });

  test("entries appended after their change, by two processes at once and beside transactions, keep one chain", async () => {
    const { orgId } = await identity.login();
    const db = getDb().db;
    // Two logs: two API instances, each remembering the head it last wrote.
    const [a, b] = [createAuditLog(), createAuditLog()];
    const entry = (n: number) => ({
      orgId,
      actor: systemActor("test"),
      action: "candidate.created",
      resourceType: "candidate",
      resourceIds: [`00000000-0000-7000-8000-${String(n).padStart(12, "0")}`],
      details: { n },
    });
    const work = Array.from({ length: 30 }, (_, i) => {
      if (i % 5 === 4) return db.transaction((tx) => a.record(tx, [entry(i)]));
      return (i % 2 ? a : b).appendCommitted(db, [entry(i), entry(100 + i)]);
    });
    await Promise.all(work);
    const report = await verifyChain(db, orgId);
    // 24 optimistic appends of two entries and 6 in transactions of one.
    assert.deepEqual(report, { ok: true, checked: 54, firstSeq: 1, lastSeq: 54, broken: null });
    const rows = await getDb().query<{ n: string }>("select details->>'n' as n from audit_log where organization_id = $1 order by seq", [
      orgId,
    ]);
    assert.deepEqual(
      rows.map((r) => Number(r.n)).sort((x, y) => x - y),
      [...Array.from({ length: 30 }, (_, i) => i), ...Array.from({ length: 30 }, (_, i) => 100 + i).filter((n) => n % 5 !== 4)].sort(
        (x, y) => x - y,
      ),
    );
  });

  test("a removed entry breaks the chain; a retention purge of the oldest does not", async () => {
    const path = `/org/${me.orgId}/audit-log/verify`;
    await getDb().query("delete from audit_log where organization_id = $1 and seq = 3", [me.orgId]);
    const gap = await ok<AuditVerify>(me, "GET", path);
    assert.deepEqual([gap.ok, gap.broken?.seq], [false, 4]);
    assert.match(gap.broken!.reason, /missing/);

    await getDb().query("delete from audit_log where organization_id = $1", [me.orgId]);
    assert.equal((await ok<AuditVerify>(me, "GET", path)).ok, false);
    // The retention's purge: everything older than its period goes, and what is recorded after verifies from there.
    const other = await identity.login();
    await ok(other, "POST", `/org/${other.orgId}/position`, { name: "Before purge" });
    assert.ok((await purgeExpired(getDb().db, new Date(Date.now() + 401 * 86_400_000))) >= 1);
    await ok(other, "POST", `/org/${other.orgId}/position`, { name: "After purge" });
    const kept = await ok<AuditVerify>(other, "GET", `/org/${other.orgId}/audit-log/verify`);
    assert.deepEqual(kept, { ok: true, checked: 1, first_seq: 2, last_seq: 2, broken: null });
  });
});
