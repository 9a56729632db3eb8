/**
 * Candidate erasure (issue 41) over real HTTP, on PGlite and Postgres, on the whole product: a
 * synced candidate whose interview was graded and written back to the ATS, with outbound
 * deliveries to a subscribed endpoint and activity, is erased; then a search of every table of the
 * schema (every text, varchar, json, jsonb and array column) for their email, name and phone finds
 * nothing; a tombstone of ids stays; `candidate.erased` is delivered (ids only); one audit entry is
 * recorded; a full sync afterwards does not bring the erased candidates back, unless the
 * organisation lifts the suppression; another organisation erases nothing; and the retention job
 * erases through the same path.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { IntegrationSyncs } from "../../../src/contracts/proxy/webhooks.js";
import type { WebhookEndpointCreated } from "../../../src/contracts/webhooks-out/endpoints.js";
import { emailHmac } from "../../../src/services/recruiting/erasure/erasure.js";
import { candidateErasure } from "../../../src/runtime/wiring.js";
import { createRetention } from "../../../src/services/retention/module.js";
import { silentLogger, testConfig } from "../../helpers/config.js";
import { describeEachDatabase } from "../../helpers/db.js";
import { findEverywhere } from "../../helpers/find-everywhere.js";
import { call, connectThroughPage, eventually, settledWriteBacks, startTestStack, type TestStack } from "../../helpers/stack.js";
import { type Receiver, startReceiver } from "../webhooks-out/receiver.js";

type Position = { id: string; name: string; candidate_stage?: string | null; upstream_integration_id?: string | null };
type Candidate = { id: string; name: string; email: string; phone: string | null; upstream_application_id?: string | null };
type Erasure = { erased: Record<string, number>; suppression_id: string | null; ats_copy: string };

describeEachDatabase("candidate erasure", (getDb) => {
  let stack: TestStack;
  let rx: Receiver;
  before(async () => {
    stack = await startTestStack(getDb(), {
      sandbox: { applications: 24 },
      config: { WEBHOOK_TARGETS: "loopback", WEBHOOK_RETRY_SCHEDULE: "0s,50ms" },
      audit: true,
    });
    rx = await startReceiver();
  });
  after(async () => {
    await stack.close();
    await rx.close();
  });

  test("an erased candidate is gone from every table, stays gone through a sync, and the customer is told", async () => {
    const db = getDb();
    const user = await stack.login();
    const token = user.accessToken;
    const org = `${stack.apiUrl}/org/${user.orgId}`;
    const endpoint = await call<WebhookEndpointCreated>(`${org}/webhook-endpoints`, { method: "POST", token, body: { url: rx.url } });
    assert.equal(endpoint.status, 200, JSON.stringify(endpoint.body));
    rx.secrets.push(endpoint.body.secret);
    const integrationId = await connectThroughPage(stack.proxyUrl, token, "greenhouse");
    const syncs = `${stack.proxyUrl}/integrations/${encodeURIComponent(integrationId)}/syncs`;
    const succeededApplicationRuns = async () =>
      (await call<IntegrationSyncs>(syncs, { token })).body.items.filter((r) => r.model === "applications" && r.state === "succeeded")
        .length;
    await eventually("the first sync", async () => ((await succeededApplicationRuns()) > 0 ? true : undefined));

    // Every candidate of the organisation; the erased ones must not share a name, email or phone with another.
    const positions = (await call<{ items: Position[] }>(`${org}/position`, { token })).body.items;
    const lists = await Promise.all(
      positions.map(async (p) => ({ p, list: (await call<Candidate[]>(`${org}/positions/${p.id}/`, { token })).body })),
    );
    const all = lists.flatMap((l) => l.list);
    const unique = (c: Candidate) =>
      c.upstream_application_id &&
      c.phone &&
      all.filter((o) => o.name === c.name || o.email.toLowerCase() === c.email.toLowerCase() || o.phone === c.phone).length === 1;
    const chosen = lists.find((l) => l.list.filter(unique).length >= 2);
    assert.ok(chosen, "a synced position with two candidates of their own name, email and phone");
    const position = chosen.p;
    const [graded, second] = chosen.list.filter(unique) as [Candidate, Candidate];

    // The first: interview graded and written back to the ATS (write-back history with its note).
    const configured = await call(`${org}/position/${position.id}`, {
      method: "PUT",
      token,
      body: { auto_update_stages: true, min_score: 70, passed_stage: "offer", rejected_stage: "Rejected", needs_reviewed_stage: "Offer" },
    });
    assert.equal(configured.status, 200, JSON.stringify(configured.body));
    const interview = `${org}/positions/${position.id}/candidates/${graded.id}/interview/`;
    assert.equal(
      (await call(interview, { method: "PUT", token, body: { status: "completed", end_time: new Date().toISOString() } })).status,
      200,
    );
    const gradedRes = await call(interview, {
      method: "PUT",
      token,
      body: {
        status: "graded",
        score: 85,
        feedback: `${graded.name} answered clearly.`,
        interview_transcript: `Hello, I am ${graded.name}.`,
      },
    });
    assert.equal(gradedRes.status, 200, JSON.stringify(gradedRes.body));
    const [wb] = await settledWriteBacks(stack, token, integrationId, graded.id);
    assert.equal(wb?.state, "done");
    // Outbound deliveries that named them (created, updated by the grading, the write-back).
    await rx.waitFor((d) => d.some((x) => x.type === "write_back.succeeded" && x.data["candidate_id"] === graded.id), 20_000);
    // A stored inbound event carrying them, and activity (a failure logged by their write-back).
    await db.query(
      "insert into webhook_events (id, type, integration_id, org_id, payload, status) values ($1, 'application.updated', $2, $3, $4::jsonb, 'processed')",
      [
        `evt-${graded.id}`,
        integrationId,
        user.orgId,
        JSON.stringify({ application: { id: graded.upstream_application_id, email: graded.email, name: graded.name } }),
      ],
    );
    await db.query(
      "insert into upstream_call_failures (integration_id, org_id, source, operation, upstream_status, error, write_back_id) values ($1, $2, 'write-back', 'POST /ats/applications/{id}/notes', 500, $3, $4)",
      [integrationId, user.orgId, `upstream refused the note for ${graded.email}`, wb!.id],
    );
    for (const needle of [graded.email, graded.name, graded.phone!])
      assert.notDeepEqual(await findEverywhere(db, needle), [], `${needle} is stored before`);

    // Another organisation: 403 on this organisation's path, 404 on its own; nothing erased.
    const other = await stack.login();
    const path = `/positions/${position.id}/candidates/${graded.id}/`;
    assert.equal((await call(`${org}${path}`, { method: "DELETE", token: other.accessToken })).status, 403);
    assert.equal((await call(`${stack.apiUrl}/org/${other.orgId}${path}`, { method: "DELETE", token: other.accessToken })).status, 404);
    assert.equal((await call(`${org}${path}`, { token })).status, 200, "still there");

    // The erasure.
    const erased = await call<Erasure>(`${org}${path}?reason=${encodeURIComponent("data subject request 17")}`, {
      method: "DELETE",
      token,
    });
    assert.equal(erased.status, 200, JSON.stringify(erased.body));
    assert.equal(erased.body.erased["candidates"], 1);
    assert.equal(erased.body.erased["interviews"], 1);
    assert.equal(erased.body.erased["write_backs"], 1);
    assert.equal(erased.body.erased["activity"], 1);
    assert.ok(erased.body.erased["webhook_events"]! >= 1, JSON.stringify(erased.body));
    assert.ok(erased.body.erased["webhook_messages"]! >= 3, JSON.stringify(erased.body));
    assert.ok(erased.body.erased["webhook_attempts"]! >= 3, JSON.stringify(erased.body));
    assert.match(erased.body.ats_copy, /ATS keeps its own copy/);
    assert.equal((await call(`${org}${path}`, { method: "DELETE", token })).status, 404, "a second erasure");
    assert.equal((await call(`${org}${path}`, { token })).status, 404);
    assert.ok(!(await call<Candidate[]>(`${org}/positions/${position.id}/`, { token })).body.some((c) => c.id === graded.id), "not listed");

    // The search: nothing anywhere in the schema.
    for (const needle of [graded.email, graded.name, graded.phone!]) assert.deepEqual(await findEverywhere(db, needle), [], needle);
    // What stays: the tombstone's ids, the time, who and why; the suppression without personal data.
    const [tomb] = await db.query<Record<string, unknown>>("select * from candidate_erasures where candidate_id = $1", [graded.id]);
    assert.deepEqual(
      { ...tomb, erased_at: typeof tomb!["erased_at"] },
      {
        candidate_id: graded.id,
        organization_id: user.orgId,
        position_id: position.id,
        upstream_application_id: graded.upstream_application_id,
        erased_at: "object",
        actor_sub: user.userId,
        actor_client: "hirebridge",
        reason: "data subject request 17",
      },
    );
    const [suppression] = await db.query<{ id: string; upstream_application_id: string; email_hmac: string }>(
      "select id, upstream_application_id, email_hmac from erasure_suppressions where candidate_id = $1",
      [graded.id],
    );
    assert.equal(suppression!.id, erased.body.suppression_id);
    assert.equal(suppression!.upstream_application_id, graded.upstream_application_id);
    assert.equal(suppression!.email_hmac, emailHmac(testConfig().ERASURE_SUPPRESSION_SECRET, graded.email.toUpperCase()));

    // The customer is told: candidate.erased, signed, ids only.
    const told = await rx.waitFor((d) => d.some((x) => x.type === "candidate.erased" && x.data["id"] === graded.id));
    const event = told.find((x) => x.type === "candidate.erased" && x.data["id"] === graded.id)!;
    assert.deepEqual(event.verifiedWith, [0]);
    assert.deepEqual(Object.keys(event.data).sort(), ["erased_at", "id", "position_id", "upstream_application_id"]);
    assert.equal(event.data["upstream_application_id"], graded.upstream_application_id);

    // One audit entry, ids only, with the actor.
    const audit = await db.query<{ actor_sub: string; resource_ids: string[]; n: number }>(
      "select actor_sub, resource_ids, (select count(*)::int from audit_log b where b.organization_id = a.organization_id and b.action = 'candidate.erased') as n from audit_log a where organization_id = $1 and action = 'candidate.erased'",
      [user.orgId],
    );
    assert.deepEqual(audit, [{ actor_sub: user.userId, resource_ids: [graded.id, position.id], n: 1 }]);

    // Erased stays erased: the second (still at the interview stage upstream) is erased, a full sync brings neither back.
    const secondPath = `${org}/positions/${position.id}/candidates/${second.id}/`;
    const secondErased = await call<Erasure>(secondPath, { method: "DELETE", token });
    assert.equal(secondErased.status, 200, JSON.stringify(secondErased.body));
    const fullSync = async () => {
      const before = await succeededApplicationRuns();
      const started = await call(`${stack.proxyUrl}/webhooks/sync-all?integration_id=${encodeURIComponent(integrationId)}`, {
        method: "POST",
        token,
      });
      assert.equal(started.status, 200);
      await eventually("a full sync", async () => ((await succeededApplicationRuns()) > before ? true : undefined));
      return (await call<Candidate[]>(`${org}/positions/${position.id}/`, { token })).body;
    };
    const afterSync = await fullSync();
    for (const c of [graded, second]) {
      assert.ok(!afterSync.some((x) => x.upstream_application_id === c.upstream_application_id || x.email === c.email), `${c.id} not back`);
    }
    // The organisation lifts the second's suppression: the next sync creates them again (a new candidate).
    assert.equal(
      (
        await call(`${stack.apiUrl}/org/${other.orgId}/erasure-suppressions/${secondErased.body.suppression_id}/`, {
          method: "DELETE",
          token: other.accessToken,
        })
      ).status,
      404,
    );
    const lifted = await call(`${org}/erasure-suppressions/${secondErased.body.suppression_id}/`, { method: "DELETE", token });
    assert.equal(lifted.status, 200, JSON.stringify(lifted.body));
    const afterLift = await fullSync();
    const back = afterLift.find((x) => x.upstream_application_id === second.upstream_application_id);
    assert.ok(back && back.id !== second.id, "the second is back after the suppression was lifted");
    assert.ok(!afterLift.some((x) => x.upstream_application_id === graded.upstream_application_id), "the first still suppressed");
  });

  test("the retention job erases through the same path: tombstone, audit entry, and no email kept", async () => {
    const db = getDb();
    const user = await stack.login();
    const token = user.accessToken;
    const org = `${stack.apiUrl}/org/${user.orgId}`;
    const endpoint = await call<WebhookEndpointCreated>(`${org}/webhook-endpoints`, { method: "POST", token, body: { url: rx.url } });
    rx.secrets.push(endpoint.body.secret);
    const position = await call<{ id: string }>(`${org}/position`, { method: "POST", token, body: { name: "Welder", state: "active" } });
    const email = `retained.${Date.now()}@example.test`;
    const created = await call<{ id: string }>(`${org}/positions/${position.body.id}/`, {
      method: "POST",
      token,
      body: { name: "Retained Person", email, phone: "+1 555 0199", language: "en" },
    });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    // More than a small batch (the free text searched by email words, the JSON bodies by their strings), one quoted in the activity trail.
    const others: string[] = [];
    for (let i = 0; i < 24; i++) {
      const res = await call<{ id: string }>(`${org}/positions/${position.body.id}/`, {
        method: "POST",
        token,
        body: { name: `Batch Person ${i}`, email: `batch.${i}.${Date.now()}@example.test`, phone: `+1 555 01${i}`, language: "en" },
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      others.push(res.body.id);
    }
    await db.query(
      "insert into upstream_call_failures (integration_id, org_id, source, operation, error) values ('greenhouse:x', $1, 'proxy', 'GET /ats/candidates', $2)",
      [user.orgId, `no candidate <${email.toUpperCase()}> upstream`],
    );
    await db.query(
      "insert into webhook_events (id, type, org_id, payload, status) values ($1, 'candidate.updated', $2, $3::jsonb, 'processed')",
      [`evt-${created.body.id}`, user.orgId, JSON.stringify({ data: { candidate: { emails: [email] } } })],
    );
    await db.query("insert into data_retention_policies (organization_id, candidate_days_after_last_change) values ($1, 0)", [user.orgId]);
    const { createAuditLog } = await import("../../../src/services/audit/audit-log.js");
    const retention = createRetention({
      config: testConfig(),
      database: db,
      logger: silentLogger(),
      erase: candidateErasure(db, testConfig(), { audit: createAuditLog() }),
    });
    const run = await retention.run(new Date(Date.now() + 1000));
    assert.ok(run.counts["candidates"]! >= 25, JSON.stringify(run.counts));
    assert.deepEqual(await db.query("select id from candidates where id = any($1::uuid[])", [others]), []);
    const [tomb] = await db.query<{ actor_sub: string; reason: string }>(
      "select actor_sub, reason from candidate_erasures where candidate_id = $1",
      [created.body.id],
    );
    assert.deepEqual(tomb, { actor_sub: "system:retention", reason: "retention:last_change" });
    const entries = await db.query<{ actor_sub: string }>(
      "select actor_sub from audit_log where organization_id = $1 and action = 'candidate.erased' and resource_ids[1] = $2",
      [user.orgId, created.body.id],
    );
    assert.deepEqual(entries, [{ actor_sub: "system:retention" }]);
    // A retention erasure suppresses no email (a new application of the person is welcome); it has no application to suppress.
    assert.deepEqual(await db.query("select 1 from erasure_suppressions where candidate_id = $1", [created.body.id]), []);
    assert.deepEqual(await findEverywhere(db, email), []);
  });
});
