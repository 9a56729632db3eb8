import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { recruitingOwnership } from "../../../src/runtime/wiring.js";
import { buildRecruitingApp } from "../../../src/services/recruiting/app.js";
import type { App } from "../../../src/shared/http/create-app.js";
import { startTestIdentity, type TestIdentity } from "../../helpers/auth.js";
import { silentLogger, testConfig } from "../../helpers/config.js";
import { describeEachDatabase } from "../../helpers/db.js";
import { call } from "../../helpers/stack.js";
import { newCandidate } from "./recruiting-harness.js";

type Candidate = { id: string; name: string; state: string; score?: number; feedback?: string; completed_at?: string; updated_at: string };
type Interview = { status: string; score: number | null; feedback: string | null; end_time: string | null };

/** What a client must be told: the rule, and both ways to correct a graded result. */
const GRADED_REFUSAL =
  /^(Candidate [0-9a-f-]+: )?The candidate's interview is graded, which is final: .*hirebridge interview correct .*POST \/api\/v1\/org\/\{org_id\}\/positions\/\{position_id\}\/candidates\/\{candidate_id\}\/interview\/correction /;

/**
 * Issue 38, defect 2, over real HTTP: once a candidate's interview is final, the candidate fields
 * that mirror its result (score, feedback, completed_at) change neither through the candidate's
 * PUT nor through the position's bulk PUT (409 naming the correction path, nothing changed); the
 * same value again, and every other field, still update.
 */
describeEachDatabase("final results through the candidate", (getDb) => {
  let identity: TestIdentity;
  let app: App;
  let api: string;
  let token: string;
  let orgId: string;
  before(async () => {
    identity = await startTestIdentity(getDb());
    app = await buildRecruitingApp({
      config: testConfig(),
      database: getDb(),
      logger: silentLogger(),
      verify: identity.verify,
      ownership: recruitingOwnership(getDb()),
    });
    await app.listen({ host: "127.0.0.1", port: 0 });
    api = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1`;
    const me = await identity.login();
    token = me.accessToken;
    orgId = me.orgId;
  });
  after(async () => {
    await app.close();
    await identity.close();
  });

  /** A candidate whose interview is graded 80 through the interview's own PUT, as the runner does. */
  const gradedCandidate = async (status: "graded" | "cancelled" = "graded") => {
    const position = await call<{ id: string }>(`${api}/org/${orgId}/position`, { method: "POST", token, body: { name: "Final" } });
    assert.equal(position.status, 200, JSON.stringify(position.body));
    const positionUrl = `${api}/org/${orgId}/positions/${position.body.id}/`;
    const created = await call<Candidate>(positionUrl, { method: "POST", token, body: newCandidate() });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const candidateUrl = `${positionUrl}candidates/${created.body.id}/`;
    const interviewUrl = `${candidateUrl}interview/`;
    const reports =
      status === "graded"
        ? [
            { status: "completed", end_time: "2026-03-01T10:00:00.000Z" },
            { status: "graded", score: 80, feedback: "Clear and structured." },
          ]
        : [{ status: "cancelled" }];
    for (const body of reports) {
      const res = await call(interviewUrl, { method: "PUT", token, body });
      assert.equal(res.status, 200, JSON.stringify(res.body));
    }
    const candidate = await call<Candidate>(candidateUrl, { token });
    return { id: created.body.id, positionUrl, candidateUrl, interviewUrl, before: candidate.body };
  };

  test("graded 80: candidate PUT of score 7, feedback or completed_at is 409 naming the correction path; nothing changes", async () => {
    const c = await gradedCandidate();
    assert.deepEqual([c.before.score, c.before.feedback, c.before.completed_at], [80, "Clear and structured.", "2026-03-01T10:00:00.000Z"]);
    for (const body of [
      { score: 7 },
      { feedback: "Rewritten" },
      { completed_at: "2026-03-02T10:00:00.000Z" },
      { name: "Renamed", score: 7 },
    ]) {
      const res = await call<{ detail: string }>(c.candidateUrl, { method: "PUT", token, body });
      assert.equal(res.status, 409, `${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
      assert.match(res.body.detail, GRADED_REFUSAL);
      assert.deepEqual((await call<Candidate>(c.candidateUrl, { token })).body, c.before, `${JSON.stringify(body)} changed nothing`);
    }
    const refused = await call<{ detail: string }>(c.candidateUrl, { method: "PUT", token, body: { score: 7, feedback: "x" } });
    assert.match(refused.body.detail, /final: score, feedback mirror its result/, "the message names the fields refused");
    const interview = await call<Interview>(c.interviewUrl, { token });
    assert.deepEqual([interview.body.status, interview.body.score], ["graded", 80], "the interview still says 80");
  });

  test("graded 80: bulk PUT [{id, score: 7}] (and feedback, completed_at) is 409 naming the candidate; no entry applies", async () => {
    const c = await gradedCandidate();
    const other = await call<Candidate>(c.positionUrl, { method: "POST", token, body: newCandidate() });
    for (const change of [{ score: 7 }, { feedback: "Rewritten" }, { completed_at: "2026-03-02T10:00:00.000Z" }]) {
      const res = await call<{ detail: string }>(c.positionUrl, {
        method: "PUT",
        token,
        body: [
          { id: other.body.id, state: "invited" },
          { id: c.id, ...change },
        ],
      });
      assert.equal(res.status, 409, `${JSON.stringify(change)}: ${JSON.stringify(res.body)}`);
      assert.match(res.body.detail, GRADED_REFUSAL);
      assert.ok(res.body.detail.startsWith(`Candidate ${c.id}: `), res.body.detail);
      assert.deepEqual((await call<Candidate>(c.candidateUrl, { token })).body, c.before);
      assert.equal((await call<Candidate>(`${c.positionUrl}candidates/${other.body.id}/`, { token })).body.state, "new", "all or nothing");
    }
  });

  test("the same values again and the other fields still update, through both paths", async () => {
    const c = await gradedCandidate();
    const same = { score: 80, feedback: "Clear and structured.", completed_at: "2026-03-01T10:00:00.000Z" };
    const put = await call<Candidate>(c.candidateUrl, { method: "PUT", token, body: { ...same, state: "interviewed" } });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.deepEqual([put.body.score, put.body.state], [80, "interviewed"]);
    // A client writing back the whole candidate it read (read-only fields are ignored).
    const read = (await call<Candidate>(c.candidateUrl, { token })).body;
    const whole = await call<Candidate>(c.candidateUrl, { method: "PUT", token, body: { ...read, name: "Ada King" } });
    assert.equal(whole.status, 200, JSON.stringify(whole.body));
    assert.equal(whole.body.name, "Ada King");
    const bulk = await call<Candidate[]>(c.positionUrl, { method: "PUT", token, body: [{ id: c.id, ...same, state: "passed" }] });
    assert.equal(bulk.status, 200, JSON.stringify(bulk.body));
    assert.deepEqual([bulk.body[0]!.score, bulk.body[0]!.state], [80, "passed"]);
  });

  test("a correction still changes the candidate; then the corrected value is the one held", async () => {
    const c = await gradedCandidate();
    const corrected = await call(`${c.interviewUrl}correction`, { method: "POST", token, body: { score: 50, reason: "Wrong rubric" } });
    assert.equal(corrected.status, 200, JSON.stringify(corrected.body));
    assert.equal((await call<Candidate>(c.candidateUrl, { token })).body.score, 50);
    assert.equal((await call(c.candidateUrl, { method: "PUT", token, body: { score: 80 } })).status, 409);
    assert.equal((await call(c.candidateUrl, { method: "PUT", token, body: { score: 50 } })).status, 200);
  });

  test("a cancelled interview is final too; before an interview is final the candidate's result fields are the client's", async () => {
    const c = await gradedCandidate("cancelled");
    const res = await call<{ detail: string }>(c.candidateUrl, { method: "PUT", token, body: { score: 7 } });
    assert.deepEqual(
      [res.status, res.body.detail],
      [409, "The candidate's interview is cancelled, which is final: score mirrors it and cannot change."],
    );

    const position = await call<{ id: string }>(`${api}/org/${orgId}/position`, { method: "POST", token, body: { name: "Open" } });
    const open = await call<Candidate>(`${api}/org/${orgId}/positions/${position.body.id}/`, {
      method: "POST",
      token,
      body: newCandidate(),
    });
    const url = `${api}/org/${orgId}/positions/${position.body.id}/candidates/${open.body.id}/`;
    const scored = await call<Candidate>(url, { method: "PUT", token, body: { score: 7, feedback: "Manual" } });
    assert.deepEqual([scored.status, scored.body.score, scored.body.feedback], [200, 7, "Manual"]);
    const missing = await call(`${api}/org/${orgId}/positions/${position.body.id}/candidates/${crypto.randomUUID()}/`, {
      method: "PUT",
      token,
      body: { score: 7 },
    });
    assert.equal(missing.status, 404, "an unknown candidate is still 404");
  });

  test("grading and a candidate PUT of the score at the same time: the candidate ends with the interview's score", async () => {
    for (let round = 0; round < 5; round++) {
      const position = await call<{ id: string }>(`${api}/org/${orgId}/position`, { method: "POST", token, body: { name: "Race" } });
      const positionUrl = `${api}/org/${orgId}/positions/${position.body.id}/`;
      const created = await call<Candidate>(positionUrl, { method: "POST", token, body: newCandidate() });
      const candidateUrl = `${positionUrl}candidates/${created.body.id}/`;
      assert.equal((await call(`${candidateUrl}interview/`, { method: "PUT", token, body: { status: "completed" } })).status, 200);
      const [graded, single, bulk] = await Promise.all([
        call(`${candidateUrl}interview/`, { method: "PUT", token, body: { status: "graded", score: 80 } }),
        call(candidateUrl, { method: "PUT", token, body: { score: 7 } }),
        call(positionUrl, { method: "PUT", token, body: [{ id: created.body.id, score: 6 }] }),
      ]);
      assert.equal(graded.status, 200);
      // Each either landed before the grading (which then overwrote it) or was refused after it.
      assert.ok([200, 409].includes(single.status) && [200, 409].includes(bulk.status), `${single.status} ${bulk.status}`);
      assert.equal((await call<Candidate>(candidateUrl, { token })).body.score, 80, `round ${round}`);
    }
  });
});
