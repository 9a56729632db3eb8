import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { buildRecruitingApp } from "../../../src/services/recruiting/app.js";
import type { App } from "../../../src/shared/http/create-app.js";
import { startTestIdentity, type TestIdentity } from "../../helpers/auth.js";
import { silentLogger, testConfig } from "../../helpers/config.js";
import { describeEachDatabase } from "../../helpers/db.js";
import { newCandidate } from "./recruiting-harness.js";

type Interview = { interview_link: string; status: string };

/**
 * The candidate's side of `interview_link`: a page served by the recruiting API, keyed by the
 * link's token only, showing that candidate's position and interview state and nothing else.
 */
describeEachDatabase("the interview link", (getDb) => {
  let identity: TestIdentity;
  let app: App;
  let redirecting: App;
  let token: string;
  let orgId: string;
  const api = (method: "GET" | "POST" | "PUT", path: string, payload?: unknown) =>
    app.inject({
      method,
      url: `/api/v1${path}`,
      headers: { authorization: `Bearer ${token}` },
      ...(payload === undefined ? {} : { payload: payload as never }),
    });

  before(async () => {
    identity = await startTestIdentity(getDb());
    const config = testConfig({ API_PORT: 18001, PUBLIC_HOST: "hirebridge.test" });
    app = await buildRecruitingApp({ config, database: getDb(), logger: silentLogger(), verify: identity.verify });
    const elsewhere = testConfig({
      API_PORT: 18001,
      PUBLIC_HOST: "hirebridge.test",
      INTERVIEW_BASE_URL: "https://interview.example.test/i/",
    });
    redirecting = await buildRecruitingApp({ config: elsewhere, database: getDb(), logger: silentLogger(), verify: identity.verify });
    const session = await identity.login();
    token = session.accessToken;
    orgId = session.orgId;
  });
  after(async () => {
    await app.close();
    await redirecting.close();
    await identity.close();
  });

  const candidateIn = async (position: Record<string, unknown>, candidate: Record<string, unknown>) => {
    const p = (await api("POST", `/org/${orgId}/position`, position)).json() as { id: string };
    const c = (await api("POST", `/org/${orgId}/positions/${p.id}/`, newCandidate(candidate))).json() as { id: string };
    const url = `/org/${orgId}/positions/${p.id}/candidates/${c.id}/interview/`;
    return { url, interview: (await api("GET", url)).json() as Interview };
  };

  test("200: the candidate's position, interview state and what to expect; nothing of another candidate", async () => {
    const grace = await candidateIn(
      {
        name: "Data Engineer",
        department: "Data",
        location: "Lisbon",
        role_description: "Pipelines & <warehouses>",
        accepted_languages: ["en", "pt"],
      },
      { name: "Grace Hopper", email: "grace@example.com" },
    );
    const alan = await candidateIn(
      { name: "Secret Project Lead", department: "Stealth" },
      { name: "Alan Turing", email: "alan@example.com" },
    );
    assert.equal((await api("PUT", alan.url, { status: "completed", score: 91, feedback: "Brilliant but late" })).statusCode, 200);

    const link = new URL(grace.interview.interview_link);
    assert.equal(link.origin, "http://hirebridge.test:18001", "the link is on the API's public origin");
    assert.match(link.pathname, /^\/interview\/[A-Za-z0-9_-]{32}$/);
    const page = await app.inject({ method: "GET", url: link.pathname });
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers["content-type"]), /^text\/html/);
    assert.equal(page.headers["cache-control"], "no-store");
    assert.equal(page.headers["referrer-policy"], "no-referrer");
    assert.match(String(page.headers["content-security-policy"]), /default-src 'none'/);
    const html = page.body;
    assert.match(html, /<h1>Data Engineer<\/h1>/);
    assert.match(html, /Data · Lisbon/);
    assert.match(html, /Hello Grace,/);
    assert.match(html, /data-status="not_started"/);
    assert.match(html, /What to expect/);
    assert.match(html, /You can answer in English, Portuguese\./);
    assert.match(html, /Pipelines &amp; &lt;warehouses&gt;/, "values are escaped");
    // Nothing of the other candidate or their position, nor Grace's contact details.
    for (const other of ["Alan", "Turing", "alan@example.com", "Secret Project", "Stealth", "Brilliant", "91", "grace@example.com"]) {
      assert.ok(!html.includes(other), `the page shows ${other}`);
    }

    // The state follows the interview; a graded one shows no score or feedback.
    assert.equal((await api("PUT", grace.url, { status: "completed", score: 77, feedback: "Solid answers" })).statusCode, 200);
    assert.equal((await api("PUT", grace.url, { status: "graded" })).statusCode, 200);
    const graded = (await app.inject({ method: "GET", url: link.pathname })).body;
    assert.match(graded, /data-status="graded"/);
    assert.ok(!graded.includes("77") && !graded.includes("Solid answers"));
  });

  test("an unknown or malformed token is a 404: a page for the candidate's browser, the API's error shape otherwise", async () => {
    for (const path of [
      "/interview/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA".slice(0, 43),
      "/interview/short",
      "/interview/..%2F..%2Fapi",
    ]) {
      const res = await app.inject({ method: "GET", url: path });
      assert.equal(res.statusCode, 404, path);
      assert.deepEqual(res.json(), { detail: "No interview at this link" });
      // What a browser sends when a candidate opens the link.
      const page = await app.inject({
        method: "GET",
        url: path,
        headers: { accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" },
      });
      assert.equal(page.statusCode, 404, path);
      assert.match(String(page.headers["content-type"]), /^text\/html/);
      assert.match(page.body, /<h1>This interview link does not work<\/h1>/);
      assert.doesNotMatch(page.body, /"detail"/);
      assert.equal(page.headers["cache-control"], "no-store");
      assert.match(String(page.headers["content-security-policy"]), /default-src 'none'/);
    }
  });

  test("with INTERVIEW_BASE_URL, a known link redirects to that front end; an unknown one is still 404", async () => {
    // Issued before INTERVIEW_BASE_URL was set: on the API's origin, sent on to the front end.
    const { interview } = await candidateIn({ name: "Redirected" }, {});
    const tokenOf = interview.interview_link.split("/").at(-1)!;
    const res = await redirecting.inject({ method: "GET", url: `/interview/${tokenOf}` });
    assert.equal(res.statusCode, 302);
    assert.equal(res.headers.location, `https://interview.example.test/i/${tokenOf}`);
    // Issued with it set: the link names the front end itself.
    const p = (
      await redirecting.inject({
        method: "POST",
        url: `/api/v1/org/${orgId}/position`,
        headers: { authorization: `Bearer ${token}` },
        payload: { name: "Front end" },
      })
    ).json() as { id: string };
    const c = (
      await redirecting.inject({
        method: "POST",
        url: `/api/v1/org/${orgId}/positions/${p.id}/`,
        headers: { authorization: `Bearer ${token}` },
        payload: newCandidate(),
      })
    ).json() as { id: string };
    const issued = (
      await redirecting.inject({
        method: "GET",
        url: `/api/v1/org/${orgId}/positions/${p.id}/candidates/${c.id}/interview/`,
        headers: { authorization: `Bearer ${token}` },
      })
    ).json() as Interview;
    assert.match(issued.interview_link, /^https:\/\/interview\.example\.test\/i\/[A-Za-z0-9_-]{32}$/);
    assert.equal((await redirecting.inject({ method: "GET", url: `/interview/${"B".repeat(32)}` })).statusCode, 404);
  });
});
