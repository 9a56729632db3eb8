import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { describeEachDatabase } from "../../helpers/db.js";
import { expect422, expectDetail, ISO, unknownId, useRecruiting, UUID, type Caller, type Harness } from "./recruiting-harness.js";

const DEFAULTS = {
  state: "draft",
  department: null,
  location: null,
  role_description: null,
  position_calender_link: null,
  accepted_languages: [],
  candidate_stage: null,
  passed_stage: null,
  rejected_stage: null,
  needs_reviewed_stage: null,
  auto_update_stages: false,
  upstream_job_id_id: null,
  upstream_integration_id: null,
};

const FULL = {
  name: "Staff Engineer",
  state: "active",
  department: "Engineering",
  location: "Berlin",
  min_score: 70,
  role_description: "Builds things",
  position_calender_link: "https://cal.example.test/staff",
  accepted_languages: ["en", "de"],
  agent_id: "agent-7",
  candidate_stage: "Screening",
  passed_stage: "Onsite",
  rejected_stage: "Rejected",
  needs_reviewed_stage: "Review",
  auto_update_stages: true,
  upstream_job_id_id: "job-1",
  upstream_integration_id: "int-1",
};

describeEachDatabase("recruiting API positions", (getDb) => {
  const h = useRecruiting(getDb);
  let me: Caller;
  let base: string;
  before(async () => {
    me = await h().login();
    base = `/org/${me.orgId}/position`;
    // The upstream links below name integrations of this org (an upstream link must name one of the org's own).
    for (const id of ["int-1", "int-9"]) await h().recordIntegration(me.orgId, id);
  });

  test("POST creates a position with the server's id, timestamps and defaults", async () => {
    const res = await me.call("POST", base, { name: "Engineer" });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.match(body.id, UUID);
    assert.match(body.created_at, ISO);
    assert.equal(body.updated_at, body.created_at);
    assert.deepEqual(body, { id: body.id, name: "Engineer", ...DEFAULTS, created_at: body.created_at, updated_at: body.created_at });
    const stored = await h().database.query("select organization_id from positions where id = $1", [body.id]);
    assert.deepEqual(stored, [{ organization_id: me.orgId }]);
  });

  test("POST stores every field, and ignores the read-only id and timestamps", async () => {
    const sentId = unknownId();
    const res = await me.call("POST", base, {
      ...FULL,
      id: sentId,
      created_at: "2001-01-01T00:00:00Z",
      updated_at: "2001-01-01T00:00:00Z",
    });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.notEqual(body.id, sentId);
    assert.notEqual(body.created_at.slice(0, 4), "2001");
    assert.deepEqual(body, { id: body.id, ...FULL, created_at: body.created_at, updated_at: body.updated_at });
    assert.deepEqual((await me.call("GET", `${base}/${body.id}`)).json(), body);
  });

  test("POST refuses what the field table forbids, listing every problem (422)", async () => {
    expect422(await me.call("POST", base, {}), [["body.name", "missing"]]);
    expect422(
      await me.call("POST", base, {
        name: "x".repeat(101),
        state: "open",
        department: "d".repeat(101),
        min_score: 2147483648,
        role_description: "r".repeat(501),
        agent_id: "",
        candidate_stage: "s".repeat(201),
        upstream_job_id_id: "j".repeat(101),
        auto_update_stages: "maybe",
        colour: "blue",
      }),
      [
        ["body.name", "string_too_long"],
        ["body.state", "enum"],
        ["body.department", "string_too_long"],
        ["body.min_score", "less_than_equal"],
        ["body.role_description", "string_too_long"],
        ["body.agent_id", "string_too_short"],
        ["body.candidate_stage", "string_too_long"],
        ["body.upstream_job_id_id", "string_too_long"],
        ["body.auto_update_stages", "bool_type"],
        ["body.colour", "extra_forbidden"],
      ],
    );
    expect422(await me.call("POST", base, { name: "" }), [["body.name", "string_too_short"]]);
    expect422(await me.call("POST", base, { name: "x", min_score: -2147483649 }), [["body.min_score", "greater_than_equal"]]);
    expect422(await me.call("POST", base, { name: "x", min_score: 1.5 }), [["body.min_score", "int_type"]]);
    // null is no integer, boolean or list: refused rather than stored as 0 / false / [null]
    expect422(await me.call("POST", base, { name: "x", min_score: null, auto_update_stages: null, accepted_languages: "en" }), [
      ["body.min_score", "int_type"],
      ["body.auto_update_stages", "bool_type"],
      ["body.accepted_languages", "list_type"],
    ]);
    expect422(await me.call("POST", base, { name: "nul\u0000byte" }), [["body.name", "string_pattern_mismatch"]]);
    expect422(await me.call("POST", base, [{ name: "x" }]), [["body", "model_type"]]);
    const malformed = await h().app.inject({
      method: "POST",
      url: `/api/v1${base}`,
      headers: { authorization: `Bearer ${me.token}`, "content-type": "application/json" },
      payload: "{nope",
    });
    expect422(malformed, [["body.0", "json_invalid"]]);
    const count = await h().database.query<{ n: number }>("select count(*)::int as n from positions where name = 'x'");
    assert.deepEqual(count, [{ n: 0 }]);
  });

  test("GET answers the position; unknown is 404; a malformed id is 422", async () => {
    const created = (await me.call("POST", base, { name: "Designer" })).json();
    const res = await me.call("GET", `${base}/${created.id}`);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), created);
    expectDetail(await me.call("GET", `${base}/${unknownId()}`), 404, "Position not found");
    expect422(await me.call("GET", `${base}/nope`), [["path.position_id", "uuid_parsing"]]);
    expect422(await me.call("GET", `${base}/urn:uuid:${created.id}`), [["path.position_id", "uuid_parsing"]]);
  });

  test("PUT changes only the fields sent and moves updated_at", async () => {
    const created = (await me.call("POST", base, { ...FULL, upstream_job_id_id: "job-2" })).json();
    await new Promise((r) => setTimeout(r, 5));
    const res = await me.call("PUT", `${base}/${created.id}`, { department: null, min_score: -5, state: "inactive", id: unknownId() });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.ok(body.updated_at > created.updated_at, `${body.updated_at} > ${created.updated_at}`);
    assert.deepEqual(body, { ...created, department: null, min_score: -5, state: "inactive", updated_at: body.updated_at });
    assert.deepEqual((await me.call("GET", `${base}/${created.id}`)).json(), body);
    const empty = await me.call("PUT", `${base}/${created.id}`, {});
    assert.equal(empty.statusCode, 200);
    assert.deepEqual({ ...(empty.json() as object), updated_at: body.updated_at }, body);
  });

  test("an upstream job links to one position per org: a second link is 409 and changes nothing", async () => {
    const linked = { upstream_integration_id: "int-9", upstream_job_id_id: "job-9" };
    const first = (await me.call("POST", base, { name: "Linked", ...linked })).json();
    const before = (await me.call("GET", base)).json();
    expectDetail(
      await me.call("POST", base, { name: "Twin", ...linked }),
      409,
      "Another position of this organization is already linked to this upstream job",
    );
    const other = (await me.call("POST", base, { name: "Other" })).json();
    expectDetail(await me.call("PUT", `${base}/${other.id}`, { name: "Twin", ...linked }), 409, /already linked to this upstream job/);
    const after = (await me.call("GET", base)).json();
    assert.deepEqual(after.items, [...before.items, other]);
    // Another org may not link this org's integration, but may link the same job id in its own.
    const stranger = await h().login();
    expect422(await stranger.call("POST", `/org/${stranger.orgId}/position`, { name: "Linked", ...linked }), [
      ["body.upstream_integration_id", "value_error"],
    ]);
    const own = { ...linked, upstream_integration_id: await h().recordIntegration(stranger.orgId) };
    const res = await stranger.call("POST", `/org/${stranger.orgId}/position`, { name: "Linked", ...own });
    assert.equal(res.statusCode, 200);
    assert.notEqual(res.json().id, first.id);
  });

  test("PUT: 404 for an unknown position, 422 for a bad field, and nothing changes", async () => {
    const created = (await me.call("POST", base, { name: "Keeper" })).json();
    expectDetail(await me.call("PUT", `${base}/${unknownId()}`, { name: "x" }), 404, "Position not found");
    expect422(await me.call("PUT", `${base}/${created.id}`, { name: "", state: "gone", extra: 1 }), [
      ["body.name", "string_too_short"],
      ["body.state", "enum"],
      ["body.extra", "extra_forbidden"],
    ]);
    expect422(await me.call("PUT", `${base}/${created.id}`, { name: null }), [["body.name", "string_type"]]);
    expect422(await me.call("PUT", `${base}/not-a-uuid`, { name: "x" }), [["path.position_id", "uuid_parsing"]]);
    assert.deepEqual((await me.call("GET", `${base}/${created.id}`)).json(), created);
  });
  positionListSuite(h);
});

/** Runs inside the suite above (same database and token service), in an org of its own. */
function positionListSuite(h: () => Harness): void {
  describe("position list", () => {
    let me: Caller;
    let base: string;
    let all: { id: string; state: string }[];
    before(async () => {
      me = await h().login();
      base = `/org/${me.orgId}/position`;
      for (const [i, state] of ["draft", "active", "active", "template", "inactive", "active", "draft"].entries()) {
        assert.equal((await me.call("POST", base, { name: `P${i}`, state })).statusCode, 200);
      }
      all = (await me.call("GET", base)).json().items;
    });

    test("the default answer is {items: [...]} with every position, oldest first", async () => {
      const res = await me.call("GET", base);
      assert.equal(res.statusCode, 200);
      assert.deepEqual(Object.keys(res.json()), ["items"]);
      assert.deepEqual(
        all.map((p) => (p as unknown as { name: string }).name),
        ["P0", "P1", "P2", "P3", "P4", "P5", "P6"],
      );
    });

    test("an org with no positions answers an empty list", async () => {
      const other = await h().login();
      const res = await other.call("GET", `/org/${other.orgId}/position`);
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), { items: [] });
    });

    test("state filters, and limit/cursor page through without repeats or gaps", async () => {
      const active = (await me.call("GET", `${base}?state=active`)).json();
      assert.deepEqual(active, { items: all.filter((p) => p.state === "active") });
      const seen: unknown[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const res = await me.call("GET", `${base}?limit=3${cursor ? `&cursor=${cursor}` : ""}`);
        assert.equal(res.statusCode, 200);
        const page = res.json() as { items: unknown[]; next_cursor: string | null };
        assert.deepEqual(Object.keys(page).sort(), ["items", "next_cursor"]);
        seen.push(...page.items);
        cursor = page.next_cursor;
        pages++;
      } while (cursor);
      assert.equal(pages, 3);
      assert.deepEqual(seen, all);
      const filtered = (await me.call("GET", `${base}?state=active&limit=2`)).json();
      assert.equal(filtered.items.length, 2);
      const rest = (await me.call("GET", `${base}?state=active&limit=2&cursor=${filtered.next_cursor}`)).json();
      assert.deepEqual(
        [...filtered.items, ...rest.items],
        all.filter((p) => p.state === "active"),
      );
      assert.equal(rest.next_cursor, null);
    });

    test("bad paging input is 422", async () => {
      expect422(await me.call("GET", `${base}?limit=0`), [["query.limit", "greater_than_equal"]]);
      expect422(await me.call("GET", `${base}?limit=501`), [["query.limit", "less_than_equal"]]);
      expect422(await me.call("GET", `${base}?limit=ten`), [["query.limit", "int_type"]]);
      expect422(await me.call("GET", `${base}?state=open`), [["query.state", "enum"]]);
      expect422(await me.call("GET", `${base}?limit=2&cursor=not-a-cursor`), [["query.cursor", "value_error"]]);
      // The tenant check runs before validation: a malformed org id is simply not the caller's org.
      expectDetail(await me.call("GET", `/org/not-a-uuid/position`), 403);
    });
  });
}
