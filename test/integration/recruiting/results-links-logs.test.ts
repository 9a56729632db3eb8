import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { after, before, test } from "node:test";
import { recruitingHooks, recruitingOwnership } from "../../../src/runtime/wiring.js";
import { buildRecruitingApp } from "../../../src/services/recruiting/app.js";
import type { App } from "../../../src/shared/http/create-app.js";
import { createLogger } from "../../../src/shared/http/logger.js";
import { openJobQueue, type JobQueue } from "../../../src/shared/jobs/queue.js";
import { tracedUrlAttributes } from "../../../src/shared/telemetry.js";
import { startTestIdentity, type TestIdentity } from "../../helpers/auth.js";
import { silentLogger, testConfig } from "../../helpers/config.js";
import { describeEachDatabase } from "../../helpers/db.js";
import { call } from "../../helpers/stack.js";
import { newCandidate } from "./recruiting-harness.js";

type Interview = { status: string; score: number | null; feedback: string | null; interview_link: string };
type Detail = { detail: { loc: (string | number)[]; msg: string; type: string }[] };

/**
 * The recruiting API over real HTTP, with the write-back hook on a real job queue and its access
 * log captured: final results stay final (issue 29, defect 2), links are http(s) only (defect 6),
 * interview tokens never reach a log line or a trace (defect 7).
 */
describeEachDatabase("results, links and logs", (getDb) => {
  let identity: TestIdentity;
  let queue: JobQueue;
  let app: App;
  let api: string;
  let token: string;
  let orgId: string;
  const logged: string[] = [];
  before(async () => {
    identity = await startTestIdentity(getDb());
    queue = await openJobQueue(getDb(), silentLogger(), { pollingIntervalSeconds: 60 });
    const destination = new Writable({
      write(chunk: Buffer, _enc, cb) {
        logged.push(chunk.toString());
        cb();
      },
    });
    app = await buildRecruitingApp({
      config: testConfig(),
      database: getDb(),
      logger: createLogger("info", { format: "json", destination }),
      verify: identity.verify,
      hooks: recruitingHooks(queue),
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
    await queue.stop();
    await identity.close();
  });

  /** A candidate of a position that writes back to the org's own integration. */
  const linkedCandidate = async () => {
    const integration = `greenhouse:${crypto.randomUUID()}`;
    await getDb().query("insert into integrations (id, org_id, tool, category, status) values ($1, $2, 'greenhouse', 'ATS', 'ACTIVE')", [
      integration,
      orgId,
    ]);
    const position = await call<{ id: string }>(`${api}/org/${orgId}/position`, {
      method: "POST",
      token,
      body: { name: "Linked", upstream_integration_id: integration, upstream_job_id_id: "job-1", auto_update_stages: true, min_score: 60 },
    });
    assert.equal(position.status, 200, JSON.stringify(position.body));
    const candidate = await call<{ id: string }>(`${api}/org/${orgId}/positions/${position.body.id}/`, {
      method: "POST",
      token,
      body: newCandidate({ upstream_application_id: `app-${crypto.randomUUID()}` }),
    });
    assert.equal(candidate.status, 200, JSON.stringify(candidate.body));
    const interview = `${api}/org/${orgId}/positions/${position.body.id}/candidates/${candidate.body.id}/interview/`;
    return {
      candidate: candidate.body.id,
      interview,
      candidateUrl: `${api}/org/${orgId}/positions/${position.body.id}/candidates/${candidate.body.id}/`,
    };
  };
  const writeBacks = (candidateId: string) =>
    getDb().query<{ outcome: string; correction_reason: string | null }>(
      "select outcome, correction_reason from write_backs where candidate_id = $1 order by created_at",
      [candidateId],
    );

  test("a graded result is final: another result is 409 saying why; a repeat changes nothing; the correction path changes it and tells the ATS", async () => {
    const c = await linkedCandidate();
    assert.equal((await call(c.interview, { method: "PUT", token, body: { status: "completed" } })).status, 200);
    assert.equal((await call(c.interview, { method: "PUT", token, body: { status: "graded", score: 85 } })).status, 200);
    for (const body of [{ status: "graded", score: 50 }, { score: 50 }, { feedback: "changed my mind" }]) {
      const again = await call<{ detail: string }>(c.interview, { method: "PUT", token, body });
      assert.equal(again.status, 409, JSON.stringify(body));
      assert.match(
        again.body.detail,
        /^The interview is graded, which is final: .*`hirebridge interview correct <position_id> <candidate_id> .*POST \/api\/v1\/org\/\{org_id\}\/positions\/\{position_id\}\/candidates\/\{candidate_id\}\/interview\/correction /,
      );
    }
    const repeat = await call<Interview>(c.interview, { method: "PUT", token, body: { status: "graded", score: 85 } });
    assert.equal(repeat.status, 200, "an at-least-once runner's repeat of the same report");
    assert.equal(repeat.body.score, 85);
    assert.deepEqual(await writeBacks(c.candidate), [{ outcome: "passed", correction_reason: null }]);

    const corrected = await call<Interview>(`${c.interview}correction`, {
      method: "POST",
      token,
      body: { score: 50, feedback: "Re-scored", reason: "Scored against the wrong rubric" },
    });
    assert.equal(corrected.status, 200, JSON.stringify(corrected.body));
    assert.deepEqual([corrected.body.status, corrected.body.score, corrected.body.feedback], ["graded", 50, "Re-scored"]);
    assert.equal((await call<{ score: number }>(c.candidateUrl, { token })).body.score, 50, "the candidate follows");
    // The corrective write-back was recorded with the change: the ATS is told, with why.
    assert.deepEqual(await writeBacks(c.candidate), [
      { outcome: "passed", correction_reason: null },
      { outcome: "rejected", correction_reason: "Scored against the wrong rubric" },
    ]);
  });

  test("only a graded result can be corrected; a cancelled interview is final too", async () => {
    const c = await linkedCandidate();
    const early = await call<{ detail: string }>(`${c.interview}correction`, { method: "POST", token, body: { score: 1, reason: "x" } });
    assert.deepEqual([early.status, early.body.detail], [409, "Only a graded result can be corrected; this interview is not_started"]);
    assert.equal((await call(c.interview, { method: "PUT", token, body: { status: "cancelled" } })).status, 200);
    const after = await call<{ detail: string }>(c.interview, { method: "PUT", token, body: { feedback: "late" } });
    assert.deepEqual([after.status, after.body.detail], [409, "The interview is cancelled, which is final: it cannot change."]);
    const missingReason = await call<Detail>(`${c.interview}correction`, { method: "POST", token, body: { score: 1 } });
    assert.equal(missingReason.status, 422);
  });

  test("links are http or https URLs only: javascript:, data: and relative links are 422 at the field", async () => {
    const c = await linkedCandidate();
    for (const [field, value] of [
      ["recording_link", "javascript:alert(document.cookie)"],
      ["transcript_link", "data:text/html,<script>alert(1)</script>"],
      ["recording_link", "//attacker.example/phish"],
    ] as const) {
      const res = await call<Detail>(c.interview, { method: "PUT", token, body: { [field]: value } });
      assert.equal(res.status, 422, `${field}=${value}`);
      assert.deepEqual(res.body.detail, [{ loc: ["body", field], msg: "URL scheme should be 'http' or 'https'", type: "url_scheme" }]);
    }
    const calendar = await call<Detail>(`${api}/org/${orgId}/position`, {
      method: "POST",
      token,
      body: { name: "x", position_calender_link: "javascript:alert(1)" },
    });
    assert.deepEqual(
      calendar.body.detail?.map((d) => [d.loc, d.type]),
      [[["body", "position_calender_link"], "url_scheme"]],
    );
    const ok = await call(c.interview, {
      method: "PUT",
      token,
      body: { recording_link: "https://rec.example/r/1", transcript_link: null },
    });
    assert.equal(ok.status, 200);
  });

  test("the interview link's token never reaches the access log or a trace", async () => {
    const c = await linkedCandidate();
    const link = (await call<Interview>(c.interview, { token })).body.interview_link;
    const secret = new URL(link).pathname.split("/").pop()!;
    assert.ok(secret.length >= 20, link);
    logged.length = 0;
    const page = await fetch(`${new URL(api).origin}/interview/${secret}`);
    assert.equal(page.status, 200);
    await page.text();
    await new Promise((r) => setTimeout(r, 50)); // the access line is written as the answer finishes
    const lines = logged.join("");
    assert.ok(lines.includes('"url":"/interview/<redacted>"'), lines);
    assert.equal(lines.includes(secret), false, "the token appears nowhere in the log");
    const span = tracedUrlAttributes(`/interview/${secret}?x=1`, "api.example");
    assert.deepEqual(span, {
      "http.target": "/interview/<redacted>?x=1",
      "http.url": "http://api.example/interview/<redacted>?x=1",
      "url.full": "http://api.example/interview/<redacted>?x=1",
      "url.path": "/interview/<redacted>",
      "url.query": "x=1",
    });
  });
});
