import assert from "node:assert/strict";
import { before, test } from "node:test";
import { describeEachDatabase } from "../../helpers/db.js";
import { expectDetail, useRecruiting, type Caller } from "./recruiting-harness.js";
import { ORG_ROUTES, type Ids } from "./routes-table.js";

describeEachDatabase("recruiting API authentication", (getDb) => {
  const h = useRecruiting(getDb);
  let owner: Caller;
  let ids: Ids;
  before(async () => {
    owner = await h().login();
    const position = (await owner.call("POST", `/org/${owner.orgId}/position`, { name: "Engineer" })).json();
    const candidate = (
      await owner.call("POST", `/org/${owner.orgId}/positions/${position.id}/`, {
        name: "A",
        email: "a@example.test",
        phone: "1",
        language: "en",
      })
    ).json();
    ids = { org: owner.orgId, position: position.id, candidate: candidate.id };
  });

  test("GET /org_id answers the token's org_id claim", async () => {
    const res = await owner.call("GET", "/org_id");
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { org_id: owner.orgId });
  });

  test("GET /org_id with a token that has no org_id claim is 403 with a clear detail", async () => {
    const res = await h().call("GET", "/org_id", { token: await h().tokenWithoutOrg() });
    expectDetail(res, 403, "The access token has no org_id claim");
  });

  test("every route answers 401 with WWW-Authenticate without a usable token", async () => {
    const expired = await h().expiredToken();
    const forged = `${owner.token.slice(0, -8)}AAAAAAAA`; // signature no longer matches
    const routes = [{ name: "org id", method: "GET" as const, path: () => "/org_id", body: undefined }, ...ORG_ROUTES];
    for (const route of routes) {
      for (const [why, headers] of [
        ["no header", {}],
        ["basic scheme", { authorization: "Basic dXNlcjpwYXNz" }],
        ["not a JWT", { authorization: "Bearer not-a-jwt" }],
        ["expired", { authorization: `Bearer ${expired}` }],
        ["bad signature", { authorization: `Bearer ${forged}` }],
      ] as const) {
        const res = await h().call(route.method, route.path(ids), { headers, payload: route.body?.(ids) });
        assert.equal(res.statusCode, 401, `${route.name} / ${why}: ${res.body}`);
        assert.match(String(res.headers["www-authenticate"]), /^Bearer/);
        assert.equal(typeof res.json().detail, "string");
        assert.doesNotMatch(res.body, /eyJ/, "no token material in the error body");
      }
    }
    const expiredRes = await h().call("GET", "/org_id", { token: expired });
    expectDetail(expiredRes, 401, "Invalid token: token has expired");
  });

  test("every /org route answers 403 to a token without an org_id claim, and changes nothing", async () => {
    const token = await h().tokenWithoutOrg();
    for (const route of ORG_ROUTES) {
      const res = await h().call(route.method, route.path(ids), { token, payload: route.body?.(ids) });
      expectDetail(res, 403, "The access token has no org_id claim");
    }
    const positions = (await owner.call("GET", `/org/${owner.orgId}/position`)).json().items;
    assert.deepEqual(
      positions.map((p: { name: string }) => p.name),
      ["Engineer"],
    );
  });

  test("401 comes before validation: a bad body without a token is still 401", async () => {
    const res = await h().call("POST", `/org/${ids.org}/position`, { payload: { name: "" } });
    expectDetail(res, 401, "Not authenticated");
  });

  test("the OpenAPI document, the docs page and /healthz need no token", async () => {
    assert.equal((await h().app.inject({ method: "GET", url: "/api/v1/openapi.json" })).statusCode, 200);
    assert.equal((await h().app.inject({ method: "GET", url: "/healthz" })).statusCode, 200);
    const docs = await h().app.inject({ method: "GET", url: "/docs" });
    assert.ok([200, 302].includes(docs.statusCode), String(docs.statusCode));
  });
});
