import assert from "node:assert/strict";
import { randomBytes, scryptSync } from "node:crypto";
import { after, before, test } from "node:test";
import { describeEachDatabase } from "../../helpers/db.js";
import { buildHarness, claims, kidOf, type Harness } from "./harness.js";

describeEachDatabase("token endpoint: password grant", (getDb) => {
  let h: Harness;
  before(async () => {
    h = await buildHarness(getDb());
  });
  after(() => h.app.close());

  test("a good login answers the Keycloak token response with ~1800 s lifetimes", async () => {
    const { user } = await h.login({ firstName: "Ada", lastName: "Lovelace" });
    const res = await h.password(user.username, user.password);
    assert.equal(res.status, 200);
    assert.equal(res.headers["cache-control"], "no-store");
    const body = res.body;
    assert.deepEqual(Object.keys(body).sort(), [
      "access_token",
      "expires_in",
      "not-before-policy",
      "refresh_expires_in",
      "refresh_token",
      "scope",
      "session_state",
      "token_type",
    ]);
    assert.equal(body.token_type, "Bearer");
    assert.equal(body.expires_in, 1800);
    assert.equal(body.refresh_expires_in, 1800);
    assert.equal(body["not-before-policy"], 0);
    assert.equal(body.scope, "profile email");

    const now = Math.floor(h.clock.now() / 1000);
    const issuer = `http://127.0.0.1:8080/realms/hirebridge`;
    const access = claims(body.access_token);
    assert.deepEqual(
      { ...access, jti: typeof access.jti },
      {
        exp: now + 1800,
        iat: now,
        iss: issuer,
        sub: user.id,
        azp: "hirebridge",
        sid: body.session_state,
        jti: "string",
        aud: ["hirebridge", "account"], // the APIs' audience (AUTH_AUDIENCE), as Keycloak's audience mapper adds it
        typ: "Bearer",
        acr: "1",
        scope: "profile email",
        email_verified: false,
        preferred_username: user.username,
        name: "Ada Lovelace",
        given_name: "Ada",
        family_name: "Lovelace",
        email: `${user.username}@example.test`,
        org_id: user.orgId,
      },
    );
    const refresh = claims(body.refresh_token);
    assert.equal(refresh["typ"], "Refresh");
    assert.equal(refresh["sid"], body.session_state);
    assert.equal(refresh.exp, now + 1800);
    assert.equal(refresh.aud, issuer);
    const kid = kidOf(body.access_token);
    assert.ok(kid);
    const jwks = await h.app.inject({ url: "/realms/hirebridge/protocol/openid-connect/certs" });
    assert.ok(jwks.json().keys.some((k: { kid: string }) => k.kid === kid));
  });

  test("lifetimes come from config and never outlive the session's maximum", async () => {
    const short = await buildHarness(getDb(), {
      overrides: { ACCESS_TOKEN_LIFESPAN: 300, REFRESH_TOKEN_LIFESPAN: 900, SESSION_MAX_LIFESPAN: 600 },
    });
    try {
      const { tokens } = await short.login();
      assert.equal(tokens.expires_in, 300);
      assert.equal(tokens.refresh_expires_in, 600);
    } finally {
      await short.app.close();
    }
  });

  test("scope=openid adds an ID token for the client", async () => {
    const { user } = await h.login();
    const res = await h.password(user.username, user.password, { scope: "openid" });
    assert.equal(res.status, 200);
    assert.equal(res.body.scope, "openid profile email");
    const id = claims(res.body.id_token);
    assert.equal(id["typ"], "ID");
    assert.equal(id.aud, "hirebridge");
    assert.equal(id.sub, user.id);
    assert.equal(id["org_id"], user.orgId);
  });

  test("an unknown scope is invalid_scope", async () => {
    const { user } = await h.login();
    const res = await h.password(user.username, user.password, { scope: "openid offline_access" });
    assert.deepEqual(res, {
      status: 400,
      body: { error: "invalid_scope", error_description: "Invalid scopes: openid offline_access" },
      headers: res.headers,
    });
  });

  test("a wrong password and an unknown user both answer 401 Invalid user credentials", async () => {
    const { user } = await h.login();
    const expected = { error: "invalid_grant", error_description: "Invalid user credentials" };
    const wrong = await h.password(user.username, "not-the-password");
    assert.equal(wrong.status, 401);
    assert.deepEqual(wrong.body, expected);
    const unknown = await h.password("nobody-by-this-name", "whatever");
    assert.equal(unknown.status, 401);
    assert.deepEqual(unknown.body, expected);
  });

  test("a user with a scrypt hash of an earlier release logs in, and the hash becomes argon2id on that login", async () => {
    const user = await h.newUser();
    const salt = randomBytes(16);
    const key = scryptSync(user.password, salt, 32, { N: 1024, r: 8, p: 1 });
    const legacy = ["scrypt", 1024, 8, 1, salt.toString("base64url"), key.toString("base64url")].join("$");
    await h.context.users.update("hirebridge", user.id, { passwordHash: legacy });

    assert.equal((await h.password(user.username, "wrong-password")).status, 401);
    assert.equal((await h.context.users.findById("hirebridge", user.id))?.passwordHash, legacy, "a failed login changes nothing");

    assert.equal((await h.password(user.username, user.password)).status, 200);
    const upgraded = (await h.context.users.findById("hirebridge", user.id))?.passwordHash ?? "";
    const { memoryKiB, passes, parallelism } = h.context.hashParams;
    assert.match(upgraded, new RegExp(`^\\$argon2id\\$v=19\\$m=${memoryKiB},t=${passes},p=${parallelism}\\$`));
    assert.equal((await h.password(user.username, user.password)).status, 200, "the upgraded hash verifies");
    assert.equal((await h.password(user.username, "wrong-password")).status, 401);
    assert.equal((await h.context.users.findById("hirebridge", user.id))?.passwordHash, upgraded, "and is not rehashed again");
  });

  test("usernames are case-insensitive, as Keycloak lower-cases them", async () => {
    const { user } = await h.login();
    assert.equal((await h.password(user.username.toUpperCase(), user.password)).status, 200);
  });

  test("missing fields are invalid_request naming the field", async () => {
    const cases: [Record<string, string>, number, Record<string, string>][] = [
      [{}, 400, { error: "invalid_request", error_description: "Missing form parameter: grant_type" }],
      [{ grant_type: "password" }, 400, { error: "invalid_request", error_description: "Missing parameter: client_id" }],
      [
        { grant_type: "password", client_id: "hirebridge", password: "x" },
        400,
        { error: "invalid_request", error_description: "Missing parameter: username" },
      ],
      [
        { grant_type: "password", client_id: "hirebridge", username: "x" },
        400,
        { error: "invalid_request", error_description: "Missing parameter: password" },
      ],
    ];
    for (const [form, status, body] of cases) {
      const res = await h.token(form);
      assert.equal(res.status, status, JSON.stringify(form));
      assert.deepEqual(res.body, body);
    }
    const empty = await h.app.inject({ method: "POST", url: "/realms/hirebridge/protocol/openid-connect/token" });
    assert.equal(empty.statusCode, 400);
    assert.deepEqual(empty.json(), { error: "invalid_request", error_description: "Missing form parameter: grant_type" });
  });

  test("an unsupported grant type is unsupported_grant_type", async () => {
    for (const grant of ["implicit", "urn:ietf:params:oauth:grant-type:device_code", "toString"]) {
      const res = await h.token({ grant_type: grant, client_id: "hirebridge" });
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { error: "unsupported_grant_type", error_description: "Unsupported grant_type" });
    }
  });

  test("an unknown client is 401 invalid_client; a client without direct grants is unauthorized_client", async () => {
    const { user } = await h.login();
    const unknown = await h.password(user.username, user.password, { client_id: "no-such-client" });
    assert.equal(unknown.status, 401);
    assert.deepEqual(unknown.body, { error: "invalid_client", error_description: "Invalid client or Invalid client credentials" });
    const account = await h.password(user.username, user.password, { client_id: "account" });
    assert.equal(account.status, 400);
    assert.deepEqual(account.body, { error: "unauthorized_client", error_description: "Client not allowed for direct access grants" });
  });

  test("the client may authenticate with HTTP Basic instead of client_id", async () => {
    const { user } = await h.login();
    const basic = `Basic ${Buffer.from("hirebridge:").toString("base64")}`;
    const res = await h.token(
      { grant_type: "password", username: user.username, password: user.password },
      { headers: { authorization: basic } },
    );
    assert.equal(res.status, 200);
    assert.equal(claims(res.body.access_token)["azp"], "hirebridge");
  });

  test("JSON bodies and repeated parameters are refused as invalid_request", async () => {
    const json = await h.app.inject({
      method: "POST",
      url: "/realms/hirebridge/protocol/openid-connect/token",
      payload: { grant_type: "password", client_id: "hirebridge", username: "demo", password: "demo-password" },
    });
    assert.equal(json.statusCode, 400);
    assert.deepEqual(json.json(), {
      error: "invalid_request",
      error_description: "Content-Type must be application/x-www-form-urlencoded",
    });
    const dup = await h.token({ grant_type: ["password", "refresh_token"], client_id: "hirebridge" });
    assert.equal(dup.status, 400);
    assert.deepEqual(dup.body, { error: "invalid_request", error_description: "duplicated or invalid parameter: grant_type" });
  });

  test("an unknown realm is 404 Realm does not exist", async () => {
    const res = await h.token({ grant_type: "password", client_id: "hirebridge" }, { realm: "elsewhere" });
    assert.equal(res.status, 404);
    assert.deepEqual(res.body, { error: "Realm does not exist" });
  });

  test("a disabled user or one with a temporary password gets invalid_grant, only with the right password", async () => {
    const disabled = await h.newUser({ enabled: false });
    assert.equal((await h.password(disabled.username, "wrong")).status, 401);
    const res = await h.password(disabled.username, disabled.password);
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, { error: "invalid_grant", error_description: "Account disabled" });

    const temporary = await h.newUser();
    const reset = await h.admin("PUT", `/users/${temporary.id}/reset-password`, { type: "password", value: "temp-pass", temporary: true });
    assert.equal(reset.status, 204);
    const tmp = await h.password(temporary.username, "temp-pass");
    assert.equal(tmp.status, 400);
    assert.deepEqual(tmp.body, { error: "invalid_grant", error_description: "Account is not fully set up" });
  });

  test("the demo user of the run contract exists in the demo organisation", async () => {
    const res = await h.password("demo", "demo-password");
    assert.equal(res.status, 200);
    const access = claims(res.body.access_token);
    assert.equal(access["org_id"], h.config.DEMO_ORG_ID);
    assert.equal(access["email"], "demo@hirebridge.local");
  });
});
