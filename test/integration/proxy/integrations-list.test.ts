import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, test } from "node:test";
import type { IntegrationList } from "../../../src/contracts/proxy/index.js";
import { recordIntegration } from "../../../src/services/proxy/integrations/integrations.repository.js";
import { createSyncRun, transitionSyncRun } from "../../../src/services/sync/sync-runs.repository.js";
import { writeBacks } from "../../../src/services/sync/sync.tables.js";
import { describeEachDatabase } from "../../helpers/db.js";
import { startProxyHarness, upstreamCalls, type ProxyHarness } from "./proxy-harness.js";

describeEachDatabase("proxy: GET /integrations", (getDb) => {
  let h: ProxyHarness;
  before(async () => {
    h = await startProxyHarness(getDb());
  });
  after(() => h?.close());

  const list = async (query: string, token?: string) => {
    const res = await h.call("GET", `/api/v1/integrations${query}`, token === undefined ? {} : { token });
    return { status: res.statusCode, body: res.json() as IntegrationList & { detail?: unknown } };
  };

  test("lists only the caller's organisation's live integrations, with last sync per model and pending write-backs", async () => {
    const login = await h.identity.login();
    const orgId = login.orgId;
    const other = await h.identity.login();
    const db = h.deps.database.db;
    await recordIntegration(db, {
      id: "greenhouse:aaa",
      orgId,
      tool: "greenhouse",
      category: "ATS",
      status: "ACTIVE",
      setupStatus: "COMPLETED",
    });
    await recordIntegration(db, { id: "lever:bbb", orgId, tool: "lever" });
    await recordIntegration(db, { id: "gone:ccc", orgId, tool: "personio" });
    await h.deps.integrations.markDeleted("gone:ccc");
    await recordIntegration(db, { id: "other:ddd", orgId: other.orgId, tool: "greenhouse" });

    const older = await createSyncRun(db, {
      integrationId: "greenhouse:aaa",
      orgId,
      model: "jobs",
      type: "FULL",
      trigger: "integration-created",
    });
    await transitionSyncRun(db, await transitionSyncRun(db, older, "running"), "succeeded");
    const newer = await createSyncRun(db, {
      integrationId: "greenhouse:aaa",
      orgId,
      model: "jobs",
      type: "DELTA",
      trigger: "data-changed",
    });
    for (const state of ["pending", "paused", "done", "failed"] as const) {
      await db.insert(writeBacks).values({
        eventKey: randomUUID(),
        orgId,
        integrationId: "greenhouse:aaa",
        applicationId: "app",
        positionId: randomUUID(),
        candidateId: randomUUID(),
        interviewId: randomUUID(),
        outcome: "passed",
        state,
      });
    }
    h.seen.length = 0;

    const { status, body } = await list("", login.accessToken);
    assert.equal(status, 200, JSON.stringify(body));
    assert.deepEqual(
      body.items.map((i) => i.id),
      ["greenhouse:aaa", "lever:bbb"],
    );
    assert.equal(body.next_cursor, undefined, "no cursor without limit");
    const [gh, lever] = body.items;
    assert.equal(gh!.tool, "greenhouse");
    assert.equal(gh!.category, "ATS");
    assert.equal(gh!.state, "ACTIVE");
    assert.equal(gh!.setup_status, "COMPLETED");
    assert.match(gh!.created_at, /^\d{4}-\d{2}-\d{2}T/);
    assert.equal(gh!.last_sync.jobs?.id, newer.id, "the newest run of the model");
    assert.equal(gh!.last_sync.jobs?.state, "queued");
    assert.equal(gh!.last_sync.applications, null);
    assert.equal(gh!.pending_write_backs, 2, "pending and paused count; done and failed do not");
    assert.deepEqual(lever!.last_sync, { jobs: null, applications: null });
    assert.equal(lever!.pending_write_backs, 0);
    assert.equal(lever!.state, null);
    assert.equal(upstreamCalls(h.seen).length, 0, "the list is Hirebridge's own records");

    const theirs = await list("", other.accessToken);
    assert.deepEqual(
      theirs.body.items.map((i) => i.id),
      ["other:ddd"],
    );
  });

  test("display_name: the upstream's organisation name, renamed by an operator, back with null; only the owner may", async () => {
    const login = await h.identity.login();
    const other = await h.identity.login();
    const named = `greenhouse:${randomUUID().slice(0, 8)}`;
    const unnamed = `lever:${randomUUID().slice(0, 8)}`;
    await recordIntegration(h.deps.database.db, { id: named, orgId: login.orgId, tool: "greenhouse", organizationName: "Acme Corp" });
    await recordIntegration(h.deps.database.db, { id: unnamed, orgId: login.orgId, tool: "lever" });
    const names = async () =>
      new Map((await list("", login.accessToken)).body.items.map((i) => [i.id, [i.display_name, i.organization_name]]));
    assert.deepEqual((await names()).get(named), ["Acme Corp", "Acme Corp"]);
    assert.deepEqual((await names()).get(unnamed), [unnamed, null], "no name known: the id");

    const patch = (id: string, payload: unknown, token = login.accessToken) =>
      h.call("PATCH", `/api/v1/integrations/${encodeURIComponent(id)}`, { token, payload: payload as object });
    const renamed = await patch(named, { display_name: "  Acme (EU)  " });
    assert.equal(renamed.statusCode, 200, renamed.body);
    const summary = renamed.json() as IntegrationList["items"][number];
    assert.equal(summary.display_name, "Acme (EU)");
    assert.equal(summary.organization_name, "Acme Corp");
    assert.deepEqual(summary.health, { state: "ok", reason: null });
    assert.deepEqual((await names()).get(named), ["Acme (EU)", "Acme Corp"]);
    // The upstream renaming the organisation does not undo an operator's name.
    await recordIntegration(h.deps.database.db, { id: named, orgId: login.orgId, tool: "greenhouse", organizationName: "Acme Group" });
    assert.deepEqual((await names()).get(named), ["Acme (EU)", "Acme Group"]);
    assert.equal((await patch(named, { display_name: null })).statusCode, 200);
    assert.deepEqual((await names()).get(named), ["Acme Group", "Acme Group"]);

    for (const bad of [{ display_name: "" }, { display_name: "   " }, { display_name: "x".repeat(201) }, {}]) {
      const res = await patch(named, bad);
      assert.equal(res.statusCode, 422, JSON.stringify(bad));
      assert.deepEqual((res.json() as { detail: { loc: unknown[] }[] }).detail[0]!.loc.slice(0, 1), ["body"]);
    }
    assert.equal((await patch(named, { display_name: "Theirs now" }, other.accessToken)).statusCode, 404);
    assert.equal((await patch("greenhouse:unknown", { display_name: "x" })).statusCode, 404);
    assert.deepEqual((await names()).get(named), ["Acme Group", "Acme Group"]);
  });

  test("pages with limit and next_cursor, every integration once, in order", async () => {
    const login = await h.identity.login();
    const orgId = login.orgId;
    const ids = Array.from({ length: 5 }, (_, i) => `tool:${i}-${randomUUID().slice(0, 8)}`);
    for (const id of ids) await recordIntegration(h.deps.database.db, { id, orgId, tool: "tool" });

    const seen: string[] = [];
    let cursor: string | null | undefined;
    let pages = 0;
    do {
      const { status, body } = await list(`?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, login.accessToken);
      assert.equal(status, 200);
      assert.ok(body.items.length <= 2);
      seen.push(...body.items.map((i) => i.id));
      cursor = body.next_cursor;
      pages++;
    } while (cursor);
    assert.equal(pages, 3);
    assert.deepEqual(seen, ids);
  });

  test("bad paging input answers 422 with its location; no token 401; a token without org 403", async () => {
    const bad = await list("?cursor=not-a-cursor");
    assert.equal(bad.status, 422);
    assert.deepEqual(bad.body.detail, [{ loc: ["query", "cursor"], msg: "Invalid cursor", type: "value_error" }]);
    const forged = await list(`?cursor=${Buffer.from(JSON.stringify(["2026-01-01T00:00:00.000000Z", "bad id\n"])).toString("base64url")}`);
    assert.equal(forged.status, 422);
    const zero = await list("?limit=0");
    assert.equal(zero.status, 422);
    assert.deepEqual((zero.body.detail as { loc: unknown[] }[])[0]!.loc, ["query", "limit"]);

    const anonymous = await h.call("GET", "/api/v1/integrations", { token: null });
    assert.equal(anonymous.statusCode, 401);
    const orgless = await h.identity.login({ orgId: "" });
    const noOrg = await list("", orgless.accessToken);
    assert.equal(noOrg.status, 403);
  });

  test("the OpenAPI document describes it, with its paging parameters and answer", async () => {
    const res = await h.call("GET", "/api/v1/openapi.json", { token: null });
    const doc = res.json() as { paths: Record<string, { get?: { parameters: { name: string }[]; responses: Record<string, unknown> } }> };
    const op = doc.paths["/api/v1/integrations"]?.get;
    assert.ok(op, "GET /api/v1/integrations is documented");
    assert.deepEqual(op.parameters.map((p) => p.name).sort(), ["cursor", "limit"]);
    assert.deepEqual(Object.keys(op.responses).sort(), ["200", "401", "403", "422"]);
  });
});
