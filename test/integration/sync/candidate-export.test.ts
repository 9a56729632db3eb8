import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { CandidateExport } from "../../../src/contracts/recruiting/candidate-export.js";
import type { AuditLogPage } from "../../../src/contracts/recruiting/audit-log.js";
import type { WebhookEndpointCreated } from "../../../src/contracts/webhooks-out/endpoints.js";
import { signWebhookBody } from "../../../src/shared/upstream/webhook-signature.js";
import { acquireWebhooksOut, recruitingHooks, recruitingOwnership } from "../../../src/runtime/wiring.js";
import { auditLogRoutes, createAuditLog } from "../../../src/services/audit/index.js";
import { buildRecruitingApp } from "../../../src/services/recruiting/app.js";
import type { Database } from "../../../src/shared/db/database.js";
import type { App } from "../../../src/shared/http/create-app.js";
import { silentLogger, testConfig } from "../../helpers/config.js";
import { describeEachDatabase } from "../../helpers/db.js";
import {
  call,
  eventually,
  settledWriteBacks,
  startTestStack,
  syncedDemoPosition,
  type SyncedCandidate,
  type SyncedPosition,
  type TestStack,
} from "../../helpers/stack.js";
import { type Receiver, startReceiver } from "../webhooks-out/receiver.js";

/** This file's ports (the task's range), one per database kind. */
let nextPort = 5900;

/**
 * The export of a candidate (GET …/candidates/{id}/export) over the whole product: a synced
 * candidate whose interview is graded and corrected, both results written back to the ATS (the
 * first after a failed upstream call), with an endpoint receiving the outbound events. The export
 * holds each of those items, and what the database holds about the candidate in each place.
 * The recruiting API here is built with the audit log (the stack's is not), on the stack's queue
 * and outbound webhooks.
 */
describeEachDatabase("candidate export", (getDb) => {
  let stack: TestStack;
  let rx: Receiver;
  let api: App;
  let apiUrl: string;
  let release: () => Promise<void>;
  let token: string;
  let orgId: string;
  let position: SyncedPosition;
  let candidates: SyncedCandidate[];
  let database: Database;

  before(async () => {
    database = getDb();
    const config = { WEBHOOK_TARGETS: "loopback", WEBHOOK_RETRY_SCHEDULE: "0s,50ms" };
    stack = await startTestStack(database, { sandbox: { applications: 24 }, config });
    rx = await startReceiver();
    const logger = silentLogger();
    const webhooks = await acquireWebhooksOut({ config: testConfig(config), database, logger });
    release = webhooks.release;
    api = await buildRecruitingApp({
      config: testConfig(config),
      database,
      logger,
      verify: stack.identity.verify,
      hooks: recruitingHooks(stack.queue),
      ownership: recruitingOwnership(database),
      events: webhooks.module.events,
      modules: [webhooks.module.routes, auditLogRoutes(database)],
      audit: createAuditLog(),
    });
    const port = nextPort++;
    await api.listen({ host: "127.0.0.1", port });
    apiUrl = `http://127.0.0.1:${port}/api/v1`;
    orgId = stack.sandbox.demoOrgId;
    token = (await stack.login(orgId)).accessToken;
    // The endpoint first: the sync's candidate.created events reach it too.
    const endpoint = await call<WebhookEndpointCreated>(`${apiUrl}/org/${orgId}/webhook-endpoints`, {
      method: "POST",
      token,
      body: { url: rx.url },
    });
    assert.ok(endpoint.status < 300, JSON.stringify(endpoint.body));
    rx.secrets.push(endpoint.body.secret);
    ({ position, candidates } = await syncedDemoPosition(stack, token, 2));
    const mapped = await call(`${apiUrl}/org/${orgId}/position/${position.id}`, {
      method: "PUT",
      token,
      body: { auto_update_stages: true, min_score: 60, passed_stage: "Offer", rejected_stage: "Rejected" },
    });
    assert.equal(mapped.status, 200);
  });
  after(async () => {
    await api?.close();
    await release?.();
    await stack?.close();
    await rx?.close();
  });

  const candidateUrl = (c: SyncedCandidate, pos = position.id, org = orgId) => `${apiUrl}/org/${org}/positions/${pos}/candidates/${c.id}/`;
  const exportOf = (c: SyncedCandidate, as = token, pos = position.id, org = orgId) =>
    call<CandidateExport & { detail?: string }>(`${candidateUrl(c, pos, org)}export`, { token: as });
  const rows = <R>(sqlText: string, params: unknown[]) => database.query<R>(sqlText, params);

  test("the export holds the candidate, interview, gradings, write-backs, failed calls, events and deliveries, and audit entries", async () => {
    const c = candidates[0]!;
    const sandboxConfig = (patch: object) => call(`${stack.sandbox.origin}/sandbox/config`, { method: "PUT", body: patch });
    // The first note fails once (503): a failed upstream call in the activity trail, then the retry lands.
    await sandboxConfig({ fault_path_prefix: `/ats/applications/${c.upstream_application_id}/notes`, fault_kinds: ["503"], fail_next: 1 });
    assert.equal((await call(`${candidateUrl(c)}interview/`, { method: "PUT", token, body: { status: "completed" } })).status, 200);
    assert.equal((await call(`${candidateUrl(c)}interview/`, { method: "PUT", token, body: { status: "graded", score: 40 } })).status, 200);
    await settledWriteBacks(stack, token, stack.sandbox.demoIntegrationId, c.id, 1);
    await sandboxConfig({ fault_path_prefix: null, fail_next: 0 });
    const corrected = await call(`${candidateUrl(c)}interview/correction`, {
      method: "POST",
      token,
      body: { score: 85, reason: "Scored against the wrong rubric" },
    });
    assert.equal(corrected.status, 200, JSON.stringify(corrected.body));
    const history = await settledWriteBacks(stack, token, stack.sandbox.demoIntegrationId, c.id, 2);
    // The write-backs' events delivered to the endpoint (their attempts are part of the export).
    await rx.waitFor((d) => d.filter((x) => x.type === "write_back.succeeded" && x.data["candidate_id"] === c.id).length === 2);

    // Two inbound events from the upstream, signed: one names the candidate's application, the other another's.
    const deliver = async (id: string, applicationId: string | undefined) => {
      const raw = JSON.stringify({
        id,
        type: "data-changed",
        data: {
          integration_id: stack.sandbox.demoIntegrationId,
          integration_tool: "greenhouse",
          integration_category: "ATS",
          changed_models: [{ name: "ats_applications" }],
          changed_records: [{ model: "ats_applications", id: applicationId }],
        },
      });
      const answer = await fetch(`${stack.proxyUrl}/webhooks/upstream/data-changed`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-kombo-signature": signWebhookBody(raw, stack.sandbox.webhookSecret) },
        body: raw,
      });
      assert.equal(answer.status, 200, await answer.text());
    };
    const naming = `evt-export-${c.id}`;
    const other = `evt-export-other-${c.id}`;
    await deliver(naming, c.upstream_application_id);
    await deliver(other, candidates[1]!.upstream_application_id);

    const res = await exportOf(c);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const doc = res.body;
    const stored = doc.inbound_events.find((e) => e.id === naming);
    assert.ok(stored, "the event naming the application");
    assert.equal(
      (stored.payload as { data: { changed_records: { id: string }[] } }).data.changed_records[0]!.id,
      c.upstream_application_id,
    );
    assert.equal(
      doc.inbound_events.some((e) => e.id === other),
      false,
      "not another candidate's event",
    );
    const candidate = (await call<Record<string, unknown>>(candidateUrl(c), { token })).body;
    const interview = (await call<Record<string, unknown>>(`${candidateUrl(c)}interview/`, { token })).body;
    assert.deepEqual(doc.candidate, candidate, "the candidate as the API answers it");
    assert.deepEqual(doc.interview, interview, "the interview as the API answers it");
    assert.deepEqual([doc.organization_id, doc.position], [orgId, { id: position.id, name: position.name }]);
    assert.equal(doc.candidate.score, 85);

    // The grading and its correction, by the token's user, with the scores before and after.
    assert.deepEqual(
      doc.grading_history.map((g) => [g.action, g.score_before, g.score_after]),
      [
        ["interview.graded", null, 40],
        ["interview.corrected", 40, 85],
      ],
    );
    assert.ok(doc.grading_history.every((g) => g.actor.sub.length > 0 && !g.actor.sub.startsWith("system:")));

    // Both write-backs, oldest first, as the history shows them; the correction's reason; the notes added.
    assert.deepEqual(
      doc.write_backs.map((w) => w.id),
      history.map((w) => w.id).reverse(),
    );
    assert.deepEqual(
      doc.write_backs.map((w) => [w.outcome, w.state, w.correction_reason, w.candidate_name, w.application_id]),
      [
        ["rejected", "done", null, c.name, c.upstream_application_id],
        ["passed", "done", "Scored against the wrong rubric", c.name, c.upstream_application_id],
      ],
    );
    assert.ok(doc.write_backs.every((w) => w.note_added_at && w.link_added_at));
    assert.ok(doc.write_backs[0]!.attempts >= 2, "the first took a retry");

    // The failed note call of the first write-back (the activity trail's upstream_call entry).
    assert.ok(
      doc.upstream_calls.some((u) => u.write_back_id === doc.write_backs[0]!.id && u.upstream_status === 503 && /notes/.test(u.operation)),
      JSON.stringify(doc.upstream_calls),
    );

    // Outbound events naming the candidate: its creation by the sync, the interview's changes, the write-backs, each delivered.
    const types = doc.outbound_events.map((e) => e.type);
    for (const t of ["candidate.created", "interview.updated", "write_back.succeeded"]) assert.ok(types.includes(t), `${t} in ${types}`);
    const delivered = rx.deliveries.filter((d) => JSON.stringify(d.data).includes(c.id));
    assert.ok(delivered.length > 0);
    for (const d of delivered) {
      const e = doc.outbound_events.find((x) => x.id === d.id);
      assert.ok(e, `delivered event ${d.type} ${d.id} is in the export`);
      assert.deepEqual(e.data, d.data);
      assert.ok(e.attempts.some((a) => a.ok && a.status_code === 200));
    }

    // The audit log's entries about the candidate and the interview: updates, the grading, the correction.
    const actions = doc.audit_entries.map((e) => e.action);
    for (const a of ["interview.updated", "interview.graded", "interview.corrected"]) assert.ok(actions.includes(a), `${a} in ${actions}`);
    assert.ok(doc.audit_entries.every((e) => e.resource_ids.includes(c.id) || e.resource_ids.includes(doc.interview!.id)));

    // Every row the database holds about the candidate, in each place, is in the export.
    const ids = (xs: { id: string }[]) => xs.map((x) => x.id).sort();
    const [wb, msgs, attempts, failures, inbound] = await Promise.all([
      rows<{ id: string }>("select id::text from write_backs where candidate_id = $1", [c.id]),
      rows<{ id: string }>("select id::text from webhook_messages where position($1 in data::text) > 0", [JSON.stringify(c.id)]),
      rows<{ n: number }>(
        "select count(*)::int as n from webhook_attempts a join webhook_messages m on m.id = a.message_id where position($1 in m.data::text) > 0",
        [JSON.stringify(c.id)],
      ),
      rows<{ id: string }>(
        "select f.id::text from upstream_call_failures f join write_backs w on w.id = f.write_back_id where w.candidate_id = $1",
        [c.id],
      ),
      rows<{ id: string }>("select id from webhook_events where position($1 in payload::text) > 0 or position($2 in payload::text) > 0", [
        JSON.stringify(c.id),
        JSON.stringify(c.upstream_application_id),
      ]),
    ]);
    assert.deepEqual(ids(doc.write_backs), ids(wb));
    assert.deepEqual(ids(doc.outbound_events), ids(msgs));
    assert.equal(
      doc.outbound_events.reduce((n, e) => n + e.attempts.length, 0),
      attempts[0]!.n,
    );
    assert.deepEqual(ids(doc.upstream_calls), ids(failures));
    assert.deepEqual(ids(doc.inbound_events), ids(inbound));
    assert.equal(doc.assessment_order, null, "a synced candidate came from no assessment order");

    // The export is in the audit log, ids only; the next export holds that entry.
    const log = await call<AuditLogPage>(`${apiUrl}/org/${orgId}/audit-log?action=candidate.exported&resource_id=${c.id}`, { token });
    assert.equal(log.status, 200);
    assert.equal(log.body.items.length, 1);
    assert.deepEqual(log.body.items[0]!.resource_ids, [c.id, position.id]);
    assert.deepEqual(log.body.items[0]!.details, {});
    const again = await exportOf(c);
    assert.ok(again.body.audit_entries.some((e) => e.action === "candidate.exported"));
  });

  test("a candidate from an assessment order: the order and its event are in the export", async () => {
    const login = await stack.login();
    const bearer = login.accessToken;
    const template = await call<{ id: string }>(`${apiUrl}/org/${login.orgId}/position`, {
      method: "POST",
      token: bearer,
      body: { name: "Export interview", state: "template", role_description: "Structured interview", accepted_languages: ["en"] },
    });
    assert.equal(template.status, 200, JSON.stringify(template.body));
    // An endpoint of this organisation, so its outbound events are recorded.
    const endpoint = await call(`${apiUrl}/org/${login.orgId}/webhook-endpoints`, { method: "POST", token: bearer, body: { url: rx.url } });
    assert.ok(endpoint.status < 300, JSON.stringify(endpoint.body));
    const sandbox = (method: string, path: string, body?: unknown) =>
      call<{ id: string; receiver: { state: string } }>(`${stack.sandbox.origin}${path}`, {
        method,
        ...(body !== undefined ? { body } : {}),
      });
    const integration = await sandbox("POST", "/sandbox/integrations", { category: "ASSESSMENT", org_id: login.orgId });
    assert.equal(integration.status, 201);
    const enc = encodeURIComponent(integration.body.id);
    await eventually("the integration recorded", async () =>
      (await call(`${stack.proxyUrl}/integrations/${enc}/summary`, { token: bearer })).status === 200 ? true : undefined,
    );
    const published = await call(`${stack.proxyUrl}/integrations/${enc}/assessment/packages/publish`, { method: "POST", token: bearer });
    assert.equal(published.status, 200, JSON.stringify(published.body));
    const applicationId = [...stack.sandbox.context.store.get(integration.body.id)!.data.applications.values()].find(
      (a) => a.deletedAt === null,
    )!.id;
    const placed = await sandbox("POST", `/sandbox/integrations/${enc}/assessment-orders`, {
      application_id: applicationId,
      package_id: template.body.id,
    });
    assert.equal(placed.status, 201, JSON.stringify(placed.body));
    assert.equal(placed.body.receiver.state, "accepted");
    const order = await eventually("the order's candidate", async () => {
      const page = await call<{ items: { order_id: string; candidate_id: string | null; position_id: string | null }[] }>(
        `${stack.proxyUrl}/integrations/${enc}/assessment/orders`,
        { token: bearer },
      );
      const o = page.body.items.find((x) => x.order_id === placed.body.id);
      return o?.candidate_id && o.position_id ? o : undefined;
    });
    const res = await exportOf({ id: order.candidate_id!, name: "" }, bearer, order.position_id!, login.orgId);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.candidate.upstream_assessment_order_id, placed.body.id);
    assert.deepEqual(
      [res.body.assessment_order?.order_id, res.body.assessment_order?.integration_id, res.body.assessment_order?.status],
      [placed.body.id, integration.body.id, "accepted"],
    );
    // The order's own outbound event names the candidate.
    assert.ok(
      res.body.outbound_events.some((e) => e.type === "assessment_order.received"),
      JSON.stringify(res.body.outbound_events.map((e) => e.type)),
    );
    // The first organisation's export of its own candidate holds nothing of this one.
    const mine = await exportOf(candidates[0]!);
    assert.equal(JSON.stringify(mine.body).includes(order.candidate_id!), false);
  });

  test("an unknown candidate, another position's, and another organisation's: 404, 404, 403, and nothing recorded", async () => {
    const exportedBefore = async () =>
      (await rows<{ n: number }>("select count(*)::int as n from audit_log where action = 'candidate.exported'", []))[0]!.n;
    const before = await exportedBefore();
    const unknown = await exportOf({ id: "00000000-0000-4000-8000-000000000000", name: "" });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.detail, "Candidate not found");
    const otherPosition = await call<{ items: { id: string }[] }>(`${apiUrl}/org/${orgId}/position`, { token });
    const elsewhere = otherPosition.body.items.find((p) => p.id !== position.id);
    assert.ok(elsewhere, "the sync made more than one position");
    assert.equal((await exportOf(candidates[1]!, token, elsewhere.id)).status, 404);
    const stranger = await stack.login();
    const foreign = await exportOf(candidates[1]!, stranger.accessToken);
    assert.equal(foreign.status, 403);
    assert.equal(JSON.stringify(foreign.body).includes(candidates[1]!.name), false);
    const ownPathForeignCandidate = await exportOf(candidates[1]!, stranger.accessToken, position.id, stranger.orgId);
    assert.equal(ownPathForeignCandidate.status, 404);
    assert.equal(await exportedBefore(), before, "no export recorded");
  });
});
