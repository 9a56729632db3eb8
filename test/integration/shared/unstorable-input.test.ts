import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { LightMyRequestResponse } from "fastify";
import { describeEachDatabase } from "../../helpers/db.js";
import { startProxyHarness, type ProxyHarness } from "../proxy/proxy-harness.js";
import { useRecruiting, type Caller } from "../recruiting/recruiting-harness.js";
import { buildHarness, type Harness as TokenHarness } from "../token/harness.js";

type Detail = { loc: (string | number)[]; msg: string; type: string };

/** A 422 HTTPValidationError with an entry at `loc`. */
function expectLoc(res: LightMyRequestResponse, loc: (string | number)[]): void {
  assert.equal(res.statusCode, 422, res.body);
  const detail = (res.json() as { detail: Detail[] }).detail;
  assert.ok(Array.isArray(detail), res.body);
  assert.ok(
    detail.some((d) => JSON.stringify(d.loc) === JSON.stringify(loc) && typeof d.msg === "string" && typeof d.type === "string"),
    `${JSON.stringify(loc)} in ${res.body}`,
  );
}

const notUtf8Json = (prefix: string, suffix: string) =>
  Buffer.concat([Buffer.from(prefix), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from(suffix)]);

/**
 * NUL and unpaired surrogates cannot be stored by Postgres or PGlite, and bytes that are not UTF-8
 * would be stored as U+FFFD: every service refuses them as input (one shared check), never a 500.
 */
describeEachDatabase("input storage cannot hold is refused as input", (getDb) => {
  describe("integration proxy: 422 with the field's loc", () => {
    let h: ProxyHarness;
    before(async () => {
      h = await startProxyHarness(getDb());
    });
    after(() => h.close());

    test("NUL in a path parameter", async () => {
      expectLoc(await h.call("GET", "/api/v1/integrations/%00"), ["path", "integration_id"]);
      expectLoc(await h.call("GET", "/api/v1/integrations/ab%00cd/syncs"), ["path", "integration_id"]);
    });
    test("NUL or a lone surrogate in the query", async () => {
      expectLoc(await h.call("GET", "/api/v1/ats/jobs?integration_id=%00"), ["query", "integration_id"]);
      expectLoc(await h.call("POST", "/api/v1/webhooks/sync-all?integration_id=x%00y"), ["query", "integration_id"]);
      expectLoc(await h.call("GET", `/api/v1/ats/jobs?integration_id=${h.integration}&cursor=a%00`), ["query", "cursor"]);
      // Percent-encoded bytes that are not UTF-8 (a surrogate as bytes, or 0xFF) are not passed on as "%FF".
      expectLoc(await h.call("GET", `/api/v1/ats/jobs?integration_id=${h.integration}&ids=%ED%A0%80`), ["query", "ids"]);
      expectLoc(await h.call("GET", `/api/v1/ats/jobs?integration_id=${h.integration}&remote_ids=%FF`), ["query", "remote_ids"]);
    });
    test("NUL, a lone surrogate or a bad key deep in a JSON body", async () => {
      const url = `/api/v1/ats/candidates?integration_id=${h.integration}`;
      const json = { "content-type": "application/json" };
      const payload = (body: unknown) => JSON.stringify(body);
      expectLoc(await h.call("POST", url, { payload: payload({ candidate: { first_name: "A\u0000" } }), headers: json }), [
        "body",
        "candidate",
        "first_name",
      ]);
      expectLoc(
        await h.call("POST", url, { payload: payload({ candidate: { email_addresses: [{ email_address: "\udc00x" }] } }), headers: json }),
        ["body", "candidate", "email_addresses", 0, "email_address"],
      );
      expectLoc(await h.call("POST", url, { payload: payload({ ["k\u0000"]: 1 }), headers: json }), ["body", "k\u0000"]);
      assert.equal(h.seen.filter((r) => r.url.startsWith("/v1/ats/candidates")).length, 0, "nothing was sent upstream");
    });
    test("a JSON body that is not UTF-8", async () => {
      const res = await h.app.inject({
        method: "POST",
        url: `/api/v1/general/force-sync?integration_id=${h.integration}`,
        headers: { authorization: `Bearer ${h.demo.accessToken}`, "content-type": "application/json" },
        payload: notUtf8Json('{"a":"', '"}'),
      });
      expectLoc(res, ["body"]);
    });
  });

  describe("bodies nested deeper than a recursive walk could go", () => {
    let h: ProxyHarness;
    before(async () => {
      h = await startProxyHarness(getDb());
    });
    after(() => h.close());
    const deep = (depth: number, leaf: string) => "[".repeat(depth) + JSON.stringify(leaf) + "]".repeat(depth);
    test("100,000 levels with a NUL at the bottom: 422 for the nesting (MAX_JSON_DEPTH) in a bounded time, not a 500", async () => {
      const started = Date.now();
      const res = await h.call("POST", `/api/v1/ats/candidates?integration_id=${h.integration}`, {
        payload: `{"candidate":${deep(100_000, "a\u0000")}}`,
        headers: { "content-type": "application/json" },
      });
      assert.equal(res.statusCode, 422, res.body.slice(0, 300));
      assert.ok(Date.now() - started < 5000, `took ${Date.now() - started} ms`);
      assert.deepEqual(res.json(), { detail: [{ loc: ["body"], msg: "JSON nested deeper than 64 levels", type: "value_error" }] });
    });
    test("a NUL 60 levels down (within the nesting limit): 422 at its loc", async () => {
      const res = await h.call("POST", `/api/v1/ats/candidates?integration_id=${h.integration}`, {
        payload: `{"candidate":${deep(60, "a\u0000")}}`,
        headers: { "content-type": "application/json" },
      });
      assert.equal(res.statusCode, 422, res.body.slice(0, 300));
      const loc = (res.json() as { detail: Detail[] }).detail[0]!.loc;
      assert.deepEqual(loc.slice(0, 3), ["body", "candidate", 0]);
      assert.equal(loc.length, 62);
    });
  });

  describe("recruiting API: 422 with the field's loc; nothing stored", () => {
    const harness = useRecruiting(getDb);
    let me: Caller;
    before(async () => {
      me = await harness().login();
    });
    test("a lone surrogate in a position name is refused, not stored as U+FFFD", async () => {
      expectLoc(await me.call("POST", `/org/${me.orgId}/position`, { name: "Eng\ud800ineer" }), ["body", "name"]);
      expectLoc(await me.call("POST", `/org/${me.orgId}/position`, { name: "Eng\u0000ineer" }), ["body", "name"]);
      const list = await me.call("GET", `/org/${me.orgId}/position`);
      assert.equal(list.statusCode, 200);
      assert.doesNotMatch(list.body, /Eng/);
    });
    test("NUL in the path and the query", async () => {
      expectLoc(await me.call("GET", `/org/${me.orgId}/position/%00`), ["path", "position_id"]);
      expectLoc(await me.call("GET", `/org/${me.orgId}/position?state=%00`), ["query", "state"]);
    });
    test("a JSON body that is not UTF-8", async () => {
      const res = await harness().app.inject({
        method: "POST",
        url: `/api/v1/org/${me.orgId}/position`,
        headers: { authorization: `Bearer ${me.token}`, "content-type": "application/json" },
        payload: notUtf8Json('{"name":"', '"}'),
      });
      expectLoc(res, ["body"]);
    });
  });

  describe("token service: 400 invalid_request (OAuth), 400 errorMessage (admin)", () => {
    let t: TokenHarness;
    before(async () => {
      t = await buildHarness(getDb());
    });
    after(() => t.app.close());

    test("NUL in a form field of the token endpoint", async () => {
      const res = await t.token({ grant_type: "password", client_id: "hirebridge", username: "de\u0000mo", password: "x" });
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.error, "invalid_request");
      assert.match(res.body.error_description, /username/);
    });
    test("a form body that is not UTF-8", async () => {
      const res = await t.app.inject({
        method: "POST",
        url: "/realms/hirebridge/protocol/openid-connect/token",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        payload: Buffer.concat([
          Buffer.from("grant_type=password&client_id=hirebridge&username="),
          Buffer.from([0xff, 0xfe]),
          Buffer.from("&password=x"),
        ]),
      });
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.json().error, "invalid_request");
    });
    test("a lone surrogate in a user created through the admin API", async () => {
      const admin = await t.adminToken();
      const res = await t.admin("POST", "/users", { username: "a\ud800b", enabled: true }, admin);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(typeof res.body.errorMessage, "string");
      const stored = await t.admin("GET", `/users?exact=true&username=${encodeURIComponent("a\ufffdb")}`, undefined, admin);
      assert.deepEqual([stored.status, stored.body], [200, []]);
    });
  });
});
