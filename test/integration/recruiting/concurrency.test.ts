import assert from "node:assert/strict";
import { before, test } from "node:test";
import { describeEachDatabase } from "../../helpers/db.js";
import { newCandidate, useRecruiting, type Caller } from "./recruiting-harness.js";

/**
 * Parallel updates of different fields of one record must all survive: each PUT sets only its own
 * columns in one statement (the row lock orders them), and the interview report locks its row.
 */
describeEachDatabase("recruiting API concurrent updates", (getDb) => {
  const h = useRecruiting(getDb);
  let me: Caller;
  before(async () => {
    me = await h().login();
  });

  test("parallel PUTs of different position fields all land", async () => {
    const p = (await me.call("POST", `/org/${me.orgId}/position`, { name: "Race" })).json();
    const url = `/org/${me.orgId}/position/${p.id}`;
    const patches = [
      { department: "Eng" },
      { location: "Remote" },
      { min_score: 55 },
      { agent_id: "agent-1" },
      { state: "active" },
      { candidate_stage: "Screen" },
      { passed_stage: "Onsite" },
      { rejected_stage: "Rejected" },
      { needs_reviewed_stage: "Review" },
      { auto_update_stages: true },
      { accepted_languages: ["en", "fr"] },
      { role_description: "Wins races" },
    ];
    for (let round = 0; round < 3; round++) {
      const results = await Promise.all(
        patches.map((patch) => me.call("PUT", url, { ...patch, ...(round ? { name: `Race ${round}` } : {}) })),
      );
      for (const r of results) assert.equal(r.statusCode, 200, r.body);
    }
    const final = (await me.call("GET", url)).json();
    for (const patch of patches) for (const [k, v] of Object.entries(patch)) assert.deepEqual(final[k], v, k);
    assert.equal(final.name, "Race 2");
  });

  test("parallel PUTs of different candidate fields, single and bulk, all land", async () => {
    const p = (await me.call("POST", `/org/${me.orgId}/position`, { name: "Race" })).json();
    const base = `/org/${me.orgId}/positions/${p.id}/`;
    const c = (await me.call("POST", base, newCandidate())).json();
    const other = (await me.call("POST", base, newCandidate())).json();
    const url = `${base}candidates/${c.id}/`;
    const results = await Promise.all([
      me.call("PUT", url, { state: "invited" }),
      me.call("PUT", url, { score: 12 }),
      me.call("PUT", url, { feedback: "fast" }),
      me.call("PUT", url, { tags: ["t1"] }),
      me.call("PUT", url, { short_listed: true }),
      me.call("PUT", url, { invited_at: "2025-01-01T00:00:00.000Z" }),
      me.call("PUT", base, [
        { id: c.id, phone: "555" },
        { id: other.id, hired: true },
      ]),
      me.call("PUT", base, [
        { id: other.id, language: "de" },
        { id: c.id, hired: true },
      ]),
    ]);
    for (const r of results) assert.equal(r.statusCode, 200, r.body);
    const final = (await me.call("GET", url)).json();
    assert.deepEqual(
      [final.state, final.score, final.feedback, final.tags, final.short_listed, final.invited_at, final.phone, final.hired],
      ["invited", 12, "fast", ["t1"], true, "2025-01-01T00:00:00.000Z", "555", true],
    );
    const o = (await me.call("GET", `${base}candidates/${other.id}/`)).json();
    assert.deepEqual([o.hired, o.language], [true, "de"]);
  });

  test("parallel interview reports: each field lands, and exactly one of two racing transitions wins", async () => {
    const p = (await me.call("POST", `/org/${me.orgId}/position`, { name: "Race" })).json();
    const base = `/org/${me.orgId}/positions/${p.id}/`;
    const c = (await me.call("POST", base, newCandidate())).json();
    const url = `${base}candidates/${c.id}/interview/`;
    const fields = await Promise.all([
      me.call("PUT", url, { conversation_id: "conv" }),
      me.call("PUT", url, { location: "Rome" }),
      me.call("PUT", url, { ip_address: "198.51.100.1" }),
      me.call("PUT", url, { start_time: "2025-02-02T00:00:00.000Z" }),
    ]);
    for (const r of fields) assert.equal(r.statusCode, 200, r.body);
    const racing = await Promise.all([
      me.call("PUT", url, { status: "cancelled" }),
      me.call("PUT", url, { status: "completed", score: 3 }),
    ]);
    assert.deepEqual(racing.map((r) => r.statusCode).sort(), [200, 409]);
    const final = (await me.call("GET", url)).json();
    const winner = racing.find((r) => r.statusCode === 200)!.json();
    assert.equal(final.status, winner.status);
    assert.deepEqual(
      [final.conversation_id, final.location, final.ip_address, final.start_time],
      ["conv", "Rome", "198.51.100.1", "2025-02-02T00:00:00.000Z"],
    );
  });
});
