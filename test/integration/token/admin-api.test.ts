import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { describeEachDatabase } from "../../helpers/db.js";
import { buildHarness, claims, type Harness } from "./harness.js";

const ORG = "7a1c2e3f-4b5d-4e6f-8a9b-0c1d2e3f4a5b";

describeEachDatabase("admin REST API (Keycloak subset)", (getDb) => {
  let h: Harness;
  let adminToken: string;
  before(async () => {
    h = await buildHarness(getDb());
    adminToken = await h.adminToken();
  });
  after(() => h.app.close());

  const admin = (method: "GET" | "POST" | "PUT" | "DELETE", path: string, body?: unknown) => h.admin(method, path, body, adminToken);

  test("without an admin token every route is 401; a non-admin token is 401 or 403", async () => {
    const res = await h.app.inject({ method: "GET", url: "/admin/realms/hirebridge/users" });
    assert.equal(res.statusCode, 401);
    assert.deepEqual(res.json(), { error: "HTTP 401 Unauthorized" });
    assert.equal(res.headers["www-authenticate"], 'Bearer realm="master"');
    const create = await h.app.inject({ method: "POST", url: "/admin/realms/hirebridge/users", payload: { username: "x" } });
    assert.equal(create.statusCode, 401);

    const { tokens } = await h.login();
    const appRealmToken = await h.admin("GET", "/users", undefined, tokens.access_token);
    assert.equal(appRealmToken.status, 401, "a token of the application realm is not an admin token");

    const masterUser = await h.admin(
      "POST",
      "master/users",
      {
        username: "operator",
        enabled: true,
        credentials: [{ type: "password", value: "operator-pass" }],
      },
      adminToken,
    );
    assert.equal(masterUser.status, 201);
    const op = await h.token(
      { grant_type: "password", client_id: "admin-cli", username: "operator", password: "operator-pass" },
      { realm: "master" },
    );
    assert.equal(op.status, 200);
    const forbidden = await h.admin("GET", "/users", undefined, op.body.access_token);
    assert.deepEqual([forbidden.status, forbidden.body], [403, { error: "HTTP 403 Forbidden" }]);
  });

  test("an admin whose session was logged out loses access", async () => {
    const login = await h.token(
      { grant_type: "password", client_id: "admin-cli", username: "admin", password: h.config.ADMIN_PASSWORD },
      { realm: "master" },
    );
    const out = await h.app.inject({
      method: "POST",
      url: "/realms/master/protocol/openid-connect/logout",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams({ client_id: "admin-cli", refresh_token: login.body.refresh_token }).toString(),
    });
    assert.equal(out.statusCode, 204);
    assert.equal((await h.admin("GET", "/users", undefined, login.body.access_token)).status, 401);
  });

  test("create answers 201 with a Location; the user reads back as Keycloak represents it", async () => {
    const res = await admin("POST", "/users", {
      username: "Grace.Hopper",
      email: "grace@example.test",
      firstName: "Grace",
      lastName: "Hopper",
      enabled: true,
      attributes: { org_id: ORG, team: ["a", "b"] },
      credentials: [{ type: "password", value: "cobol-1959", temporary: false }],
      requiredActions: [],
      groups: [],
    });
    assert.equal(res.status, 201);
    assert.equal(res.body, undefined);
    const location = String(res.headers["location"]);
    assert.match(location, /^http:\/\/127\.0\.0\.1:8080\/admin\/realms\/hirebridge\/users\/[0-9a-f-]{36}$/);
    const id = location.split("/").at(-1)!;

    const got = await admin("GET", `/users/${id}`);
    assert.equal(got.status, 200);
    assert.deepEqual(got.body, {
      id,
      username: "grace.hopper",
      firstName: "Grace",
      lastName: "Hopper",
      email: "grace@example.test",
      emailVerified: false,
      enabled: true,
      createdTimestamp: h.clock.now(),
      attributes: { org_id: [ORG], team: ["a", "b"] },
      requiredActions: [],
    });

    const login = await h.password("grace.hopper", "cobol-1959");
    assert.equal(login.status, 200);
    assert.equal(claims(login.body.access_token)["org_id"], ORG, "the org_id attribute becomes the org_id claim");
  });

  test("duplicate usernames and emails answer 409 as Keycloak does", async () => {
    const user = await h.newUser();
    const dupName = await admin("POST", "/users", { username: user.username.toUpperCase(), enabled: true });
    assert.deepEqual([dupName.status, dupName.body], [409, { errorMessage: "User exists with same username" }]);
    const dupEmail = await admin("POST", "/users", { username: "someone-else-1", email: `${user.username}@EXAMPLE.test` });
    assert.deepEqual([dupEmail.status, dupEmail.body], [409, { errorMessage: "User exists with same email" }]);
  });

  test("concurrent creates of one username: one 201, the rest 409", async () => {
    const results = await Promise.all([1, 2, 3].map(() => admin("POST", "/users", { username: "racer", enabled: true })));
    assert.deepEqual(results.map((r) => r.status).sort(), [201, 409, 409]);
  });

  test("bad input is 400 with errorMessage", async () => {
    const noName = await admin("POST", "/users", { email: "x@example.test" });
    assert.deepEqual([noName.status, noName.body], [400, { errorMessage: "User name is missing" }]);
    const badEmail = await admin("POST", "/users", { username: "bad-email", email: "not-an-email" });
    assert.deepEqual([badEmail.status, badEmail.body], [400, { errorMessage: "Invalid email address." }]);
    const badType = await admin("POST", "/users", { username: "typed", enabled: "yes-please" });
    assert.equal(badType.status, 400);
    assert.match(badType.body.errorMessage, /enabled/);
    const text = await h.app.inject({
      method: "POST",
      url: "/admin/realms/hirebridge/users",
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/xml" },
      payload: "<user><username>x</username></user>",
    });
    assert.deepEqual([text.statusCode, text.json()], [415, { error: "Content-Type must be application/json" }]);
  });

  test("a user created without enabled:true is disabled, as in Keycloak", async () => {
    const res = await admin("POST", "/users", { username: "sleepy", credentials: [{ type: "password", value: "zzz-pass" }] });
    assert.equal(res.status, 201);
    const login = await h.password("sleepy", "zzz-pass");
    assert.deepEqual([login.status, login.body], [400, { error: "invalid_grant", error_description: "Account disabled" }]);
  });

  test("search by username: substring by default, exact with exact=true, paginated", async () => {
    for (const name of ["searchme-alpha", "searchme-beta", "searchme"]) {
      assert.equal((await admin("POST", "/users", { username: name, enabled: true })).status, 201);
    }
    const names = (r: { body: { username: string }[] }) => r.body.map((u) => u.username);
    assert.deepEqual(names(await admin("GET", "/users?username=SEARCHME")), ["searchme", "searchme-alpha", "searchme-beta"]);
    assert.deepEqual(names(await admin("GET", "/users?username=searchme&exact=true")), ["searchme"]);
    assert.deepEqual(names(await admin("GET", "/users?username=searchme&first=1&max=1")), ["searchme-alpha"]);
    assert.deepEqual(names(await admin("GET", "/users?search=searchme-b")), ["searchme-beta"]);
    assert.deepEqual(names(await admin("GET", "/users?username=search_e")), [], "LIKE wildcards are literal");
    assert.deepEqual((await admin("GET", "/users?username=nobody-at-all")).body, []);
  });

  test("PUT updates the given fields; attributes are replaced as a whole", async () => {
    const user = await h.newUser({ firstName: "Old" });
    const res = await admin("PUT", `/users/${user.id}`, { firstName: "New", attributes: { org_id: [ORG] } });
    assert.equal(res.status, 204);
    const got = (await admin("GET", `/users/${user.id}`)).body;
    assert.equal(got.firstName, "New");
    assert.equal(got.email, `${user.username}@example.test`);
    assert.deepEqual(got.attributes, { org_id: [ORG] });
    const renamed = await admin("PUT", `/users/${user.id}`, { username: "another-name" });
    assert.equal(renamed.status, 400);
  });

  test("reset-password replaces the password", async () => {
    const user = await h.newUser();
    const res = await admin("PUT", `/users/${user.id}/reset-password`, { type: "password", value: "brand-new-pass", temporary: false });
    assert.equal(res.status, 204);
    assert.equal((await h.password(user.username, user.password)).status, 401);
    assert.equal((await h.password(user.username, "brand-new-pass")).status, 200);
  });

  test("logout ends every session of the user", async () => {
    const user = await h.newUser();
    const a = await h.password(user.username, user.password);
    const b = await h.password(user.username, user.password);
    assert.equal((await admin("POST", `/users/${user.id}/logout`)).status, 204);
    for (const s of [a, b]) {
      const res = await h.refresh(s.body.refresh_token);
      assert.deepEqual(res.body, { error: "invalid_grant", error_description: "Session not active" });
    }
  });

  test("delete removes the user; unknown ids are 404 User not found", async () => {
    const user = await h.newUser();
    assert.equal((await admin("DELETE", `/users/${user.id}`)).status, 204);
    const missing = { error: "User not found" };
    for (const [method, path] of [
      ["GET", `/users/${user.id}`],
      ["DELETE", `/users/${user.id}`],
      ["PUT", `/users/${user.id}/reset-password`],
      ["POST", `/users/${user.id}/logout`],
      ["GET", "/users/not-a-uuid"],
    ] as const) {
      const res = await admin(method, path, method === "PUT" ? { type: "password", value: "x-pass" } : undefined);
      assert.deepEqual([res.status, res.body], [404, missing], `${method} ${path}`);
    }
    assert.equal((await h.password(user.username, user.password)).status, 401);
  });

  test("an unknown realm is 404", async () => {
    const res = await admin("GET", "nowhere/users");
    assert.deepEqual([res.status, res.body], [404, { error: "Realm does not exist" }]);
  });
});
