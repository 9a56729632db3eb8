import assert from "node:assert/strict";
import { request } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { after, before, test } from "node:test";
import { buildRecruitingApp } from "../../../src/services/recruiting/app.js";
import { createApp, type App } from "../../../src/shared/http/create-app.js";
import { createLogger } from "../../../src/shared/http/logger.js";
import { startTestIdentity, type TestIdentity } from "../../helpers/auth.js";
import { testConfig } from "../../helpers/config.js";
import { describeEachDatabase } from "../../helpers/db.js";
import { call } from "../../helpers/stack.js";
import { newCandidate } from "../recruiting/recruiting-harness.js";

/** A stdout stand-in that keeps every line written. */
function sink(): Writable & { text(): string; clear(): void } {
  let chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      chunks.push(chunk.toString());
      cb();
    },
  }) as Writable & { text(): string; clear(): void };
  stream.text = () => chunks.join("");
  stream.clear = () => {
    chunks = [];
  };
  return stream;
}

/** GET `path` exactly as written (fetch would normalise it: dot segments, case of escapes). */
function rawGet(origin: string, path: string, headers: Record<string, string> = {}): Promise<number> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, path, method: "GET", headers }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end();
  });
}

/** Every spelling of issue 38's defect 3 that reached the log with the token in it. */
const spellings = (token: string) => [
  `/interview/${token}`,
  `/%69nterview/${token}`,
  `//interview/${token}`,
  `/interview//${token}`,
  `/Interview/${token}`,
  `/INTERVIEW/${token}`,
  `/./interview/${token}`,
  `/x/../interview/${token}`,
  `/interview/${token}/..`,
  `/interview;x=1/${token}`,
  `/interview/${token};x=1`,
  `/interview%2F${token}`,
  `/interview%2f${token}`,
  `/%2e/interview/${token}`,
  `/interview\\${token}`,
  `/interview/${token}?x=1`,
  `/nowhere?next=/interview/${token}`,
  `/nowhere?next=${encodeURIComponent(`https://app.example/interview/${token}`)}`,
  `/nowhere?next=%2Finterview%2F${token}`,
];

/** Query names the issue lists as credentials, with a value that is not token-shaped. */
const CREDENTIAL_NAMES = ["token", "access_token", "authorization", "code", "refresh_token", "password", "secret", "signature"];

/**
 * Issue 38, defect 3, over real HTTP: the recruiting API's access log (JSON) holds no secret
 * however the path is spelled, matched (the candidate's page answers 200 to some spellings) or not
 * (404), nor a JWT sent in the query, nor a credential-named query value.
 */
describeEachDatabase("secrets never reach the access log, whatever the spelling", (getDb) => {
  let identity: TestIdentity;
  let app: App;
  let origin: string;
  let accessToken: string;
  let interviewToken: string;
  const out = sink();
  before(async () => {
    identity = await startTestIdentity(getDb());
    app = await buildRecruitingApp({
      config: testConfig(),
      database: getDb(),
      logger: createLogger("info", { format: "json", destination: out }),
      verify: identity.verify,
    });
    await app.listen({ host: "127.0.0.1", port: 0 });
    origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const me = await identity.login();
    accessToken = me.accessToken;
    const api = `${origin}/api/v1/org/${me.orgId}`;
    const position = await call<{ id: string }>(`${api}/position`, { method: "POST", token: accessToken, body: { name: "Logs" } });
    assert.equal(position.status, 200, JSON.stringify(position.body));
    const candidate = await call<{ id: string }>(`${api}/positions/${position.body.id}/`, {
      method: "POST",
      token: accessToken,
      body: newCandidate(),
    });
    assert.equal(candidate.status, 200, JSON.stringify(candidate.body));
    const interview = await call<{ interview_link: string }>(
      `${api}/positions/${position.body.id}/candidates/${candidate.body.id}/interview/`,
      {
        token: accessToken,
      },
    );
    interviewToken = new URL(interview.body.interview_link).pathname.split("/").pop()!;
    assert.match(interviewToken, /^[A-Za-z0-9_-]{32}$/);
  });
  after(async () => {
    await app.close();
    await identity.close();
  });

  /** The access lines written while `send` ran. */
  const logged = async (send: () => Promise<unknown>) => {
    out.clear();
    await send();
    await new Promise((r) => setTimeout(r, 50)); // the access line is written as the answer finishes
    return out
      .text()
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l["msg"] === "request");
  };

  test("each spelling of the interview path: answered as before, logged without the token", async () => {
    const statuses: Record<string, number> = {};
    for (const path of spellings(interviewToken)) {
      const lines = await logged(async () => (statuses[path] = await rawGet(origin, path, { accept: "text/html" })));
      assert.equal(lines.length, 1, path);
      const line = JSON.stringify(lines[0]);
      assert.ok(!line.includes(interviewToken), `${path} logged as ${line}`);
      assert.ok(!line.includes(interviewToken.slice(0, 16)), `no part of the token: ${line}`);
      assert.match(String(lines[0]!["url"]), /<redacted>|%3Credacted%3E/, path);
    }
    // The router decodes %69: the page is served, and the line names the route's pattern.
    assert.equal(statuses[`/%69nterview/${interviewToken}`], 200);
    assert.equal(statuses[`/interview/${interviewToken}`], 200);
    assert.equal(statuses[`/Interview/${interviewToken}`], 404);
    const served = await logged(() => rawGet(origin, `/%69nterview/${interviewToken}`));
    assert.equal(served[0]!["route"], "/interview/:token");
    assert.equal(served[0]!["url"], "/%69nterview/<redacted>");
  });

  test("a JWT in the query and credential-named query values are redacted, on routes and on 404s", async () => {
    const [head, payload, signature] = accessToken.split(".") as [string, string, string];
    for (const path of [
      `/api/v1/org_id?Authorization=${encodeURIComponent(`Bearer ${accessToken}`)}`,
      `/nowhere?Authorization=Bearer+${accessToken}`,
      `/nowhere?q=${accessToken}`,
      `/nowhere/${accessToken}`,
    ]) {
      const lines = await logged(() => rawGet(origin, path));
      const line = JSON.stringify(lines);
      for (const part of [head, payload, signature]) assert.ok(!line.includes(part.slice(0, 24)), `${path}: ${line}`);
    }
    const query = CREDENTIAL_NAMES.map((name, i) => `${name}=v4lue-${i}`).join("&");
    for (const path of [`/api/v1/org_id?${query}&state=kept`, `/nowhere?${query}&state=kept`]) {
      const [line] = await logged(() => rawGet(origin, path));
      const url = String(line!["url"]);
      for (let i = 0; i < CREDENTIAL_NAMES.length; i++) assert.ok(!url.includes(`v4lue-${i}`), `${CREDENTIAL_NAMES[i]} in ${url}`);
      assert.match(url, /state=kept/, "other values stay readable");
      assert.match(url, /^\/(api\/v1\/org_id|nowhere)\?token=%3Credacted%3E&/);
    }
  });
});

test("pretty lines of 404s, which print the URL, hold no secret either", async () => {
  const out = sink();
  const app = createApp({ service: "api", logger: createLogger("info", { format: "pretty", destination: out }).child({ service: "api" }) });
  await app.listen({ host: "127.0.0.1", port: 0 });
  try {
    const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const token = "Zq3xY7wV1uT5sR9pO2nM6lK0jI4hG8fE";
    for (const path of spellings(token)) assert.equal(await rawGet(origin, path), 404, path);
    await new Promise((r) => setTimeout(r, 50));
    // Every line: the listening notice and one per request.
    const lines = out.text().trim().split("\n");
    assert.ok(!out.text().includes(token.slice(0, 12)));
    const requests = lines.filter((l) => / GET /.test(l));
    assert.equal(requests.length, spellings(token).length);
    for (const line of requests) {
      assert.match(line, /^\d\d:\d\d:\d\d INFO {2}api {2}GET \S+ 404 /, line);
      assert.ok(!line.includes(token.slice(0, 12)), line);
    }
  } finally {
    await app.close();
  }
});
