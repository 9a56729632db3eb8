import assert from "node:assert/strict";
import { before, test } from "node:test";
import { describeEachDatabase } from "../../helpers/db.js";
import { expect422, expectDetail, newCandidate, unknownId, useRecruiting, type Caller } from "./recruiting-harness.js";
import { ORG_ROUTES, type Ids } from "./routes-table.js";

const FORBIDDEN = "The access token does not grant access to this organization";

/**
 * Org B's token is run against EVERY /org route of org A: with A's org in the path (403, the same
 * answer whether or not the records exist), and with B's own org in the path but A's record ids
 * (404, as if they did not exist). Org A's rows are compared before and after: nothing changes.
 */
describeEachDatabase("recruiting API tenant isolation", (getDb) => {
  const h = useRecruiting(getDb);
  let a: Caller;
  let b: Caller;
  let ids: Ids;
  const snapshot = async (orgId: string) => {
    const q = h().database.query;
    return {
      positions: await q("select to_jsonb(p) as r from positions p where organization_id = $1 order by id", [orgId]),
      candidates: await q("select to_jsonb(c) as r from candidates c where organization_id = $1 order by id", [orgId]),
      interviews: await q("select to_jsonb(i) as r from interviews i where organization_id = $1 order by id", [orgId]),
    };
  };
  before(async () => {
    a = await h().login();
    b = await h().login();
    await h().recordIntegration(a.orgId, "int-a");
    const position = (
      await a.call("POST", `/org/${a.orgId}/position`, {
        name: "Secret role",
        upstream_job_id_id: "job-a",
        upstream_integration_id: "int-a",
      })
    ).json();
    const candidate = (
      await a.call("POST", `/org/${a.orgId}/positions/${position.id}/`, newCandidate({ email: "private@a.example" }))
    ).json();
    await a.call("PUT", `/org/${a.orgId}/positions/${position.id}/candidates/${candidate.id}/interview/`, {
      status: "completed",
      score: 9,
    });
    ids = { org: a.orgId, position: position.id, candidate: candidate.id };
  });

  test("B's token on A's org path: 403 on every route, identical for existing and missing records", async () => {
    const before = await snapshot(a.orgId);
    const missing: Ids = { org: a.orgId, position: unknownId(), candidate: unknownId() };
    for (const route of ORG_ROUTES) {
      const onReal = await b.call(route.method, route.path(ids), route.body?.(ids));
      const onMissing = await b.call(route.method, route.path(missing), route.body?.(missing));
      expectDetail(onReal, 403, FORBIDDEN);
      assert.equal(onMissing.statusCode, onReal.statusCode, route.name);
      assert.equal(onMissing.body, onReal.body, `${route.name}: the answer does not reveal existence`);
      // Even a body that would fail validation is refused as 403 first, so nothing about A is probed.
      if (route.body) expectDetail(await b.call(route.method, route.path(ids), { bogus: true }), 403, FORBIDDEN);
      // Upper-case org ids are the same org, and still not B's.
      expectDetail(await b.call(route.method, route.path({ ...ids, org: a.orgId.toUpperCase() }), route.body?.(ids)), 403, FORBIDDEN);
    }
    assert.deepEqual(await snapshot(a.orgId), before);
  });

  test("B's token on B's path with A's record ids: 404 everywhere, nothing of A leaks or changes", async () => {
    const before = await snapshot(a.orgId);
    const crossed: Ids = { org: b.orgId, position: ids.position, candidate: ids.candidate };
    for (const route of ORG_ROUTES) {
      const res = await b.call(route.method, route.path(crossed), route.body?.(crossed));
      if (route.name === "list positions") {
        assert.equal(res.statusCode, 200);
        assert.deepEqual(res.json(), { items: [] });
      } else if (route.name === "create position") {
        assert.equal(res.statusCode, 200);
        assert.equal(res.json().name, "Intruder");
      } else {
        assert.equal(res.statusCode, 404, `${route.name}: ${res.body}`);
        assert.match(res.json().detail, /^(Position|Candidate) not found/);
      }
      assert.doesNotMatch(res.body, /Secret role|private@a\.example/);
    }
    assert.deepEqual(await snapshot(a.orgId), before);
    // B's own creation landed in B, not in A.
    const bPositions = (await b.call("GET", `/org/${b.orgId}/position`)).json().items;
    assert.deepEqual(
      bPositions.map((p: { name: string }) => p.name),
      ["Intruder"],
    );
  });

  test("B cannot link A's integration; the same job id may back a position of B in B's own integration", async () => {
    const before = await snapshot(a.orgId);
    const theirs = { name: "Mine", upstream_job_id_id: "job-a", upstream_integration_id: "int-a" };
    expect422(await b.call("POST", `/org/${b.orgId}/position`, theirs), [["body.upstream_integration_id", "value_error"]]);
    const res = await b.call("POST", `/org/${b.orgId}/position`, {
      ...theirs,
      upstream_integration_id: await h().recordIntegration(b.orgId),
    });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(await snapshot(a.orgId), before);
  });

  test("A still sees exactly its own data", async () => {
    const list = (await a.call("GET", `/org/${a.orgId}/position`)).json().items;
    assert.deepEqual(
      list.map((p: { id: string }) => p.id),
      [ids.position],
    );
    const cands = (await a.call("GET", `/org/${a.orgId}/positions/${ids.position}/`)).json();
    assert.deepEqual(
      cands.map((c: { id: string }) => c.id),
      [ids.candidate],
    );
  });
});
