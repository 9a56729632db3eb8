/**
 * Erasing a position with its candidates (issue 41, docs/privacy.md "Erasure") over real HTTP, on
 * PGlite and Postgres: DELETE /org/{org_id}/position/{position_id} erases every candidate of the
 * position through the candidates' erasure, then the position; a search of every table for the
 * candidates' emails, names and phones finds nothing; tombstones of ids stay; a second call
 * answers 404; another organisation erases nothing; a `position.erased` audit entry (ids only) is
 * recorded; a template's deletion publishes the packages again without it.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Kombo } from "@kombo-api/sdk";
import { describeEachDatabase } from "../../helpers/db.js";
import { findEverywhere } from "../../helpers/find-everywhere.js";
import { call, eventually, startTestStack, type TestStack } from "../../helpers/stack.js";

type Erasure = { erased: Record<string, number>; ats_copy: string };

describeEachDatabase("position erasure", (getDb) => {
  let stack: TestStack;
  before(async () => {
    stack = await startTestStack(getDb(), { audit: true });
  });
  after(async () => {
    await stack.close();
  });

  test("a position with its candidates is erased: none of their data anywhere, tombstones and one audit entry stay", async () => {
    const db = getDb();
    const user = await stack.login();
    const token = user.accessToken;
    const org = `${stack.apiUrl}/org/${user.orgId}`;
    const created = await call<{ id: string }>(`${org}/position`, { method: "POST", token, body: { name: "Glazier", state: "active" } });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const positionId = created.body.id;
    // A position of the same organisation that keeps its candidate.
    const kept = await call<{ id: string }>(`${org}/position`, { method: "POST", token, body: { name: "Roofer", state: "active" } });
    const stamp = Date.now();
    const people = [0, 1, 2].map((i) => ({
      name: `Erasable Glazier${i} ${stamp}`,
      email: `glazier.${i}.${stamp}@example.test`,
      phone: `+1 555 77${i}${stamp % 1000}`,
    }));
    const ids: string[] = [];
    for (const [i, p] of people.entries()) {
      // The first with an Idempotency-Key: its stored answer holds the email too.
      const res = await fetch(`${org}/positions/${positionId}/`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          ...(i === 0 ? { "idempotency-key": `glazier-${stamp}` } : {}),
        },
        body: JSON.stringify({ ...p, language: "en" }),
      });
      const body = (await res.json()) as { id: string };
      assert.equal(res.status, 200, JSON.stringify(body));
      ids.push(body.id);
    }
    const keptCandidate = await call<{ id: string }>(`${org}/positions/${kept.body.id}/`, {
      method: "POST",
      token,
      body: { name: `Kept Roofer ${stamp}`, email: `roofer.${stamp}@example.test`, phone: "+1 555 0100", language: "en" },
    });
    assert.equal(keptCandidate.status, 200);
    for (const p of people) assert.notDeepEqual(await findEverywhere(db, p.email), [], `${p.email} stored before`);

    // Another organisation: 403 on this organisation's path, 404 on its own; nothing erased.
    const other = await stack.login();
    assert.equal((await call(`${org}/position/${positionId}`, { method: "DELETE", token: other.accessToken })).status, 403);
    const own = `${stack.apiUrl}/org/${other.orgId}/position/${positionId}`;
    assert.equal((await call(own, { method: "DELETE", token: other.accessToken })).status, 404);
    assert.equal((await call<unknown[]>(`${org}/positions/${positionId}/`, { token })).body.length, 3, "still there");

    const erased = await call<Erasure>(`${org}/position/${positionId}?reason=${encodeURIComponent("position closed")}`, {
      method: "DELETE",
      token,
    });
    assert.equal(erased.status, 200, JSON.stringify(erased.body));
    assert.equal(erased.body.erased["positions"], 1);
    assert.equal(erased.body.erased["candidates"], 3);
    assert.equal(erased.body.erased["interviews"], 3);
    assert.ok(erased.body.erased["idempotency_keys"]! >= 1, JSON.stringify(erased.body));
    assert.match(erased.body.ats_copy, /ATS keeps its own copy/);
    assert.equal((await call(`${org}/position/${positionId}`, { method: "DELETE", token })).status, 404, "a second erasure");
    assert.equal((await call(`${org}/position/${positionId}`, { token })).status, 404);
    assert.ok(!(await call<{ items: { id: string }[] }>(`${org}/position`, { token })).body.items.some((p) => p.id === positionId));

    for (const p of people) for (const needle of [p.email, p.name, p.phone]) assert.deepEqual(await findEverywhere(db, needle), [], needle);
    // The other position and its candidate are untouched.
    assert.equal((await call(`${org}/positions/${kept.body.id}/candidates/${keptCandidate.body.id}/`, { token })).status, 200);

    // Tombstones: ids, who and why.
    const tombs = await db.query<{ candidate_id: string; position_id: string; actor_sub: string; reason: string }>(
      "select candidate_id, position_id, actor_sub, reason from candidate_erasures where position_id = $1 order by candidate_id",
      [positionId],
    );
    assert.deepEqual(
      tombs,
      [...ids].sort().map((id) => ({ candidate_id: id, position_id: positionId, actor_sub: user.userId, reason: "position closed" })),
    );
    // One position.erased entry (ids only) and one candidate.erased per candidate.
    const audit = await db.query<{ action: string; resource_ids: string[]; actor_sub: string }>(
      "select action, resource_ids, actor_sub from audit_log where organization_id = $1 and action in ('position.erased', 'candidate.erased') order by action, resource_ids[1]",
      [user.orgId],
    );
    assert.deepEqual(audit, [
      ...[...ids].sort().map((id) => ({ action: "candidate.erased", resource_ids: [id, positionId], actor_sub: user.userId })),
      { action: "position.erased", resource_ids: [positionId], actor_sub: user.userId },
    ]);
    assert.deepEqual(
      await db.query("select 1 from audit_log where organization_id = $1 and action like '%.erased'", [other.orgId]),
      [],
      "the other organisation erased nothing",
    );
  });

  test("a template position deleted is withdrawn from the assessment packages", async () => {
    const user = await stack.login();
    const token = user.accessToken;
    const org = `${stack.apiUrl}/org/${user.orgId}`;
    const kept = await call<{ id: string; name: string }>(`${org}/position`, {
      method: "POST",
      token,
      body: { name: "Kept interview", state: "template", role_description: "stays" },
    });
    const doomed = await call<{ id: string }>(`${org}/position`, {
      method: "POST",
      token,
      body: { name: "Doomed interview", state: "template", role_description: "goes" },
    });
    assert.equal(doomed.status, 200, JSON.stringify(doomed.body));
    const created = await call<{ id: string }>(`${stack.sandbox.origin}/sandbox/integrations`, {
      method: "POST",
      body: { category: "ASSESSMENT", org_id: user.orgId },
    });
    assert.equal(created.status, 201);
    const integrationId = created.body.id;
    const kombo = new Kombo({ api_key: stack.sandbox.apiKey, integration_id: integrationId, server_url: stack.sandbox.url });
    const packageIds = async () => (await kombo.assessment.getPackages()).data.packages.map((p) => p.id).sort();
    const both = [kept.body.id, doomed.body.id].sort();
    await eventually("both templates published", async () => {
      const ids = await packageIds();
      return JSON.stringify(ids) === JSON.stringify(both) ? true : undefined;
    });

    const erased = await call<Erasure>(`${org}/position/${doomed.body.id}`, { method: "DELETE", token });
    assert.equal(erased.status, 200, JSON.stringify(erased.body));
    assert.deepEqual(erased.body.erased["positions"], 1);
    await eventually("the deleted template withdrawn", async () => {
      const ids = await packageIds();
      return JSON.stringify(ids) === JSON.stringify([kept.body.id]) ? true : undefined;
    });
  });
});
