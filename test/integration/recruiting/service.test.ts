import assert from "node:assert/strict";
import { test } from "node:test";
import { startStack } from "../../../src/runtime/stack.js";
import { silentLogger, testConfig } from "../../helpers/config.js";
import { freshDatabase } from "../../helpers/db.js";
import { freePort } from "../../helpers/ports.js";

/**
 * The `api` service as `hirebridge serve` starts it (with the token service): real ports, the
 * demo login, and the write-back hook on the process's job queue. Storage-independent wiring, so
 * one storage kind suffices here; the endpoint suites run on both.
 */
test("serve token api: the demo user works the API, and grading enqueues the ATS write-back", async (t) => {
  const database = await freshDatabase("postgres");
  const config = testConfig({ HOST: "127.0.0.1", AUTH_PORT: await freePort(), API_PORT: await freePort() });
  const stack = await startStack(config, ["token", "api"], silentLogger(), { database });
  t.after(async () => {
    await stack.close();
    await database.dispose();
  });
  const api = `http://127.0.0.1:${config.API_PORT}/api/v1`;
  assert.ok((await stack.banner()).some((l) => l.startsWith(`Recruiting API     ${api}`)));

  const login = await fetch(`http://127.0.0.1:${config.AUTH_PORT}/realms/hirebridge/protocol/openid-connect/token`, {
    method: "POST",
    body: new URLSearchParams({ grant_type: "password", client_id: "hirebridge", username: "demo", password: config.DEMO_PASSWORD }),
  });
  const token = ((await login.json()) as { access_token: string }).access_token;
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${api}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  assert.deepEqual(await call("GET", "/org_id"), { status: 200, body: { org_id: config.DEMO_ORG_ID } });

  const org = `/org/${config.DEMO_ORG_ID}`;
  // `serve api` checks upstream links against the integrations table with no proxy in the process.
  const refused = await call("POST", `${org}/position`, { name: "Linked", upstream_integration_id: "int-1" });
  assert.equal(refused.status, 422);
  await database.query("insert into integrations (id, org_id, tool) values ('int-1', $1, 'greenhouse')", [config.DEMO_ORG_ID]);
  const position = await call("POST", `${org}/position`, {
    name: "Linked",
    auto_update_stages: true,
    upstream_integration_id: "int-1",
    upstream_job_id_id: "job-1",
    min_score: 50,
    passed_stage: "Passed",
  });
  assert.equal(position.status, 200);
  const candidate = await call("POST", `${org}/positions/${position.body["id"]}/`, {
    name: "Ada",
    email: "ada@example.test",
    phone: "1",
    language: "en",
    upstream_application_id: "app-1",
  });
  const interview = `${org}/positions/${position.body["id"]}/candidates/${candidate.body["id"]}/interview/`;
  assert.equal((await call("PUT", interview, { status: "completed", score: 80 })).status, 200);
  assert.equal((await call("PUT", interview, { status: "graded" })).status, 200);

  const writeBacks = await database.query("select outcome, target_stage, application_id, candidate_id from write_backs");
  assert.deepEqual(writeBacks, [
    { outcome: "passed", target_stage: "Passed", application_id: "app-1", candidate_id: candidate.body["id"] },
  ]);
  const jobs = await database.query(`select count(*)::int as n from ${database.schema}_boss.job where name = 'write-back'`);
  assert.deepEqual(jobs, [{ n: 1 }]);
});
