import assert from "node:assert/strict";
import { before, test } from "node:test";
import { describeEachDatabase } from "../../helpers/db.js";
import { bulkUpdateSuite } from "./candidates-bulk.suite.js";
import {
  expect422,
  expectDetail,
  INTERVIEW_BASE,
  ISO,
  newCandidate,
  unknownId,
  useRecruiting,
  UUID,
  type Caller,
} from "./recruiting-harness.js";

type Candidate = Record<string, unknown> & { id: string; email: string; updated_at: string };

describeEachDatabase("recruiting API candidates", (getDb) => {
  const h = useRecruiting(getDb);
  let me: Caller;
  let positionId: string;
  let base: string;
  const create = async (over: Record<string, unknown> = {}) => {
    const res = await me.call("POST", base, newCandidate(over));
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as Candidate;
  };
  before(async () => {
    me = await h().login();
    positionId = (await me.call("POST", `/org/${me.orgId}/position`, { name: "Engineer" })).json().id;
    base = `/org/${me.orgId}/positions/${positionId}/`;
  });

  test("POST creates the candidate with defaults, ids from the path, and its interview record", async () => {
    const sent = newCandidate({ organization_id: unknownId(), position_id: unknownId(), id: unknownId() });
    const res = await me.call("POST", base, sent);
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.match(body.id, UUID);
    assert.notEqual(body.id, sent["id"]);
    assert.match(body.created_at, ISO);
    assert.deepEqual(body, {
      id: body.id,
      position_id: positionId,
      organization_id: me.orgId,
      name: sent.name,
      email: sent.email,
      phone: sent.phone,
      language: "en",
      state: "new",
      hired: false,
      short_listed: false,
      tags: [],
      created_at: body.created_at,
      updated_at: body.created_at,
    });
    const interview = await me.call("GET", `${base}candidates/${body.id}/interview/`);
    assert.equal(interview.statusCode, 200);
    const link = interview.json().interview_link as string;
    assert.ok(link.startsWith(`${INTERVIEW_BASE}/`), link);
    assert.ok(link.length - INTERVIEW_BASE.length - 1 >= 32, "at least 192 random bits");
    assert.ok(!link.includes(body.id) && !link.includes(interview.json().id), "not derived from ids");
    assert.deepEqual(interview.json(), {
      id: interview.json().id,
      conversation_id: null,
      transcript_link: null,
      recording_link: null,
      start_time: null,
      end_time: null,
      graded_at: null,
      last_attempted_at: null,
      ip_address: null,
      location: null,
      interview_link: link,
      status: "not_started",
      score: null,
      feedback: null,
      interview_transcript: null,
      candidate: body.id,
    });
  });

  test("POST with the optional creation fields stores them; short_listed null means false", async () => {
    const body = await create({ tags: ["python", "remote"], hired: true, upstream_application_id: "app-1", short_listed: null });
    assert.deepEqual(
      [body["tags"], body["hired"], body["upstream_application_id"], body["short_listed"]],
      [["python", "remote"], true, "app-1", false],
    );
    const unlinked = await create({ upstream_application_id: null, short_listed: true });
    assert.equal("upstream_application_id" in unlinked, false);
    assert.equal(unlinked["short_listed"], true);
  });

  test("one email once per position (case-insensitive): 409, and no row or interview is added", async () => {
    const first = await create({ email: "Grace@Example.test" });
    const count = async () =>
      (
        await h().database.query<{ c: number; i: number }>(
          "select (select count(*) from candidates)::int as c, (select count(*) from interviews)::int as i",
        )
      )[0];
    const before = await count();
    const res = await me.call("POST", base, newCandidate({ email: "grace@example.TEST" }));
    expectDetail(res, 409, "Candidate not created: another candidate of this position already has this email");
    assert.doesNotMatch(res.body, /grace/i, "the database's detail (with the value) is not echoed");
    assert.deepEqual(await count(), before);
    // The same email in another position is fine.
    const other = (await me.call("POST", `/org/${me.orgId}/position`, { name: "Other" })).json();
    const elsewhere = await me.call("POST", `/org/${me.orgId}/positions/${other.id}/`, newCandidate({ email: first.email }));
    assert.equal(elsewhere.statusCode, 200);
    const linked = await create({ upstream_application_id: "app-dup" });
    expectDetail(
      await me.call("POST", base, newCandidate({ upstream_application_id: "app-dup" })),
      409,
      /linked to this upstream application/,
    );
    assert.ok(linked.id);
  });

  test("POST: 404 for an unknown position; 422 for every constraint of the creation body", async () => {
    expectDetail(await me.call("POST", `/org/${me.orgId}/positions/${unknownId()}/`, newCandidate()), 404, "Position not found");
    expect422(await me.call("POST", base, {}), [
      ["body.name", "missing"],
      ["body.email", "missing"],
      ["body.phone", "missing"],
      ["body.language", "missing"],
    ]);
    expect422(
      await me.call("POST", base, {
        name: "n".repeat(201),
        email: "not-an-email",
        phone: "",
        language: "l".repeat(201),
        tags: ["a", "a"],
        hired: "yes",
        upstream_application_id: "",
        short_listed: "no",
        state: "new",
      }),
      [
        ["body.name", "string_too_long"],
        ["body.email", "value_error"],
        ["body.phone", "string_too_short"],
        ["body.language", "string_too_long"],
        ["body.tags", "unique_items"],
        ["body.hired", "bool_type"],
        ["body.upstream_application_id", "string_too_short"],
        ["body.short_listed", "bool_type"],
        ["body.state", "extra_forbidden"],
      ],
    );
    expect422(await me.call("POST", base, newCandidate({ email: `${"e".repeat(190)}@example.test` })), [["body.email", "string_too_long"]]);
    expect422(await me.call("POST", base, newCandidate({ tags: "solo" })), [["body.tags", "list_type"]]);
    expect422(await me.call("POST", `/org/${me.orgId}/positions/123/`, newCandidate()), [["path.position_id", "uuid_parsing"]]);
  });

  test("GET lists the position's candidates oldest first; 404 for an unknown position", async () => {
    const pos = (await me.call("POST", `/org/${me.orgId}/position`, { name: "Listed" })).json();
    const url = `/org/${me.orgId}/positions/${pos.id}/`;
    const empty = await me.call("GET", url);
    assert.equal(empty.statusCode, 200);
    assert.deepEqual(empty.json(), []);
    const made = [];
    for (const name of ["First", "Second", "Third"]) made.push((await me.call("POST", url, newCandidate({ name }))).json());
    assert.deepEqual((await me.call("GET", url)).json(), made);
    expectDetail(await me.call("GET", `/org/${me.orgId}/positions/${unknownId()}/`), 404, "Position not found");
    expect422(await me.call("GET", `/org/${me.orgId}/positions/xyz/`), [["path.position_id", "uuid_parsing"]]);
  });

  test("the list answer equals each candidate's own answer, with every field set or absent", async () => {
    const pos = (await me.call("POST", `/org/${me.orgId}/position`, { name: "Shapes" })).json();
    const url = `/org/${me.orgId}/positions/${pos.id}/`;
    const bare = (await me.call("POST", url, newCandidate({ name: 'Ünïcödé "quoted" \\ name', tags: ["a,b", "{x}", "é"] }))).json();
    const full = (
      await me.call("POST", url, newCandidate({ upstream_application_id: "app-full", hired: true, short_listed: true }))
    ).json();
    await me.call("PUT", `${url}candidates/${full.id}/`, {
      state: "passed",
      score: -7,
      feedback: "Line one\nline two\ttabbed",
      invited_at: "2025-03-04T05:06:07.089Z",
      completed_at: "2025-03-05T00:00:00.999+01:00",
    });
    // A candidate synced from an ATS without a phone number answers without `phone`.
    await h().database.query("update candidates set phone = null where id = $1", [bare.id]);
    const listed = await me.call("GET", url);
    assert.equal(listed.statusCode, 200);
    assert.match(String(listed.headers["content-type"]), /^application\/json/);
    const one = async (id: string) => (await me.call("GET", `${url}candidates/${id}/`)).json();
    assert.deepEqual(listed.json(), [await one(bare.id), await one(full.id)]);
    assert.equal("phone" in listed.json()[0], false);
    assert.equal(listed.json()[1].completed_at, "2025-03-04T23:00:00.999Z");
  });

  test("GET one candidate; 404 when not in this position", async () => {
    const c = await create();
    assert.deepEqual((await me.call("GET", `${base}candidates/${c.id}/`)).json(), c);
    expectDetail(await me.call("GET", `${base}candidates/${unknownId()}/`), 404, "Candidate not found");
    const other = (await me.call("POST", `/org/${me.orgId}/position`, { name: "Elsewhere" })).json();
    expectDetail(await me.call("GET", `/org/${me.orgId}/positions/${other.id}/candidates/${c.id}/`), 404, "Candidate not found");
    expect422(await me.call("GET", `${base}candidates/nope/`), [["path.candidate_id", "uuid_parsing"]]);
  });

  test("PUT one candidate changes only the fields sent, ignores path-owned ones, and moves updated_at", async () => {
    const c = await create({ tags: ["a"] });
    await new Promise((r) => setTimeout(r, 5));
    const patch = {
      state: "invited",
      score: 2147483647,
      feedback: "Strong",
      invited_at: "2025-01-02T03:04:05.678Z",
      completed_at: "2025-01-03T00:00:00+02:00",
      tags: ["b", "c"],
      short_listed: true,
      upstream_application_id: "app-42",
      position_id: unknownId(),
      organization_id: unknownId(),
      created_at: "2000-01-01T00:00:00Z",
    };
    const res = await me.call("PUT", `${base}candidates/${c.id}/`, patch);
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.ok(body.updated_at > c.updated_at);
    assert.deepEqual(body, {
      ...c,
      state: "invited",
      score: 2147483647,
      feedback: "Strong",
      invited_at: "2025-01-02T03:04:05.678Z",
      completed_at: "2025-01-02T22:00:00.000Z",
      tags: ["b", "c"],
      short_listed: true,
      upstream_application_id: "app-42",
      updated_at: body.updated_at,
    });
    const unlinked = (await me.call("PUT", `${base}candidates/${c.id}/`, { upstream_application_id: null })).json();
    assert.equal("upstream_application_id" in unlinked, false);
  });

  test("PUT one candidate: 409 on a taken email, 404 unknown, 422 bad fields; nothing changes", async () => {
    const a = await create();
    const b = await create();
    const res = await me.call("PUT", `${base}candidates/${b.id}/`, { email: a.email.toUpperCase(), name: "Changed" });
    expectDetail(res, 409, "Candidate not updated: another candidate of this position already has this email");
    expectDetail(await me.call("PUT", `${base}candidates/${unknownId()}/`, { name: "x" }), 404, "Candidate not found");
    expect422(
      await me.call("PUT", `${base}candidates/${b.id}/`, {
        state: "hired",
        score: 2 ** 31,
        feedback: "",
        invited_at: "yesterday",
        nope: 1,
      }),
      [
        ["body.state", "enum"],
        ["body.score", "less_than_equal"],
        ["body.feedback", "string_too_short"],
        ["body.invited_at", "datetime_from_date_parsing"],
        ["body.nope", "extra_forbidden"],
      ],
    );
    for (const impossible of ["2016-12-31T23:59:60Z", "0000-06-01T00:00:00Z"]) {
      expect422(await me.call("PUT", `${base}candidates/${b.id}/`, { invited_at: impossible }), [
        ["body.invited_at", "datetime_from_date_parsing"],
      ]);
    }
    expect422(await me.call("PUT", `${base}candidates/${b.id}/`, { score: null, hired: null }), [
      ["body.score", "int_type"],
      ["body.hired", "bool_type"],
    ]);
    assert.deepEqual((await me.call("GET", `${base}candidates/${b.id}/`)).json(), b);
  });
  bulkUpdateSuite(h);
});
