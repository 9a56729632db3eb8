import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { loadConfig } from "../../../src/shared/config.js";
import { ConfigSchema } from "../../../src/runtime/config.js";
import { startStack } from "../../../src/runtime/stack.js";
import { describeEachDatabase } from "../../helpers/db.js";
import { silentLogger } from "../../helpers/config.js";
import { buildHarness, type Harness } from "./harness.js";

const OIDC = "/realms/hirebridge/protocol/openid-connect";
const ISSUER = "http://127.0.0.1:8080/realms/hirebridge";

describeEachDatabase("discovery, JWKS, userinfo, logout", (getDb) => {
  let h: Harness;
  before(async () => {
    h = await buildHarness(getDb());
  });
  after(() => h.app.close());

  const logout = (form: Record<string, string>) =>
    h.app.inject({
      method: "POST",
      url: `${OIDC}/logout`,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams(form).toString(),
    });
  const userinfo = (token?: string) =>
    h.app.inject({ method: "GET", url: `${OIDC}/userinfo`, headers: token ? { authorization: `Bearer ${token}` } : {} });

  test("discovery names the issuer and every endpoint under it", async () => {
    const res = await h.app.inject({ url: "/realms/hirebridge/.well-known/openid-configuration" });
    assert.equal(res.statusCode, 200);
    const doc = res.json();
    assert.equal(doc.issuer, ISSUER);
    assert.equal(doc.token_endpoint, `${ISSUER}/protocol/openid-connect/token`);
    assert.equal(doc.jwks_uri, `${ISSUER}/protocol/openid-connect/certs`);
    assert.equal(doc.userinfo_endpoint, `${ISSUER}/protocol/openid-connect/userinfo`);
    assert.equal(doc.end_session_endpoint, `${ISSUER}/protocol/openid-connect/logout`);
    assert.deepEqual(doc.grant_types_supported, ["authorization_code", "client_credentials", "password", "refresh_token"]);
    assert.deepEqual(doc.code_challenge_methods_supported, ["S256"]);
    assert.deepEqual(doc.id_token_signing_alg_values_supported, ["RS256"]);
    const master = await h.app.inject({ url: "/realms/master/.well-known/openid-configuration" });
    assert.equal(master.json().issuer, "http://127.0.0.1:8080/realms/master");
    const unknown = await h.app.inject({ url: "/realms/nope/.well-known/openid-configuration" });
    assert.deepEqual([unknown.statusCode, unknown.json()], [404, { error: "Realm does not exist" }]);
  });

  test("the JWKS publishes only public RSA signing keys", async () => {
    const res = await h.app.inject({ url: `${OIDC}/certs` });
    assert.equal(res.statusCode, 200);
    const { keys } = res.json() as { keys: Record<string, string>[] };
    assert.ok(keys.length >= 1);
    for (const key of keys) {
      assert.deepEqual(Object.keys(key).sort(), ["alg", "e", "kid", "kty", "n", "use"]);
      assert.equal(key["kty"], "RSA");
      assert.equal(key["alg"], "RS256");
      assert.equal(key["use"], "sig");
    }
  });

  test("userinfo answers the profile of a live session's access token", async () => {
    const { user, tokens } = await h.login({ firstName: "Lin", lastName: "Ada" });
    const res = await userinfo(tokens.access_token);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), {
      sub: user.id,
      email_verified: false,
      preferred_username: user.username,
      name: "Lin Ada",
      given_name: "Lin",
      family_name: "Ada",
      email: `${user.username}@example.test`,
      org_id: user.orgId,
    });
    const post = await h.app.inject({
      method: "POST",
      url: `${OIDC}/userinfo`,
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    assert.equal(post.statusCode, 200);
  });

  test("userinfo refuses missing, invalid and refresh tokens, and tokens of ended sessions, with 401 invalid_token", async () => {
    const { tokens } = await h.login();
    const missing = await userinfo();
    assert.equal(missing.statusCode, 401);
    assert.deepEqual(missing.json(), { error: "invalid_token", error_description: "Token not provided" });
    assert.match(String(missing.headers["www-authenticate"]), /^Bearer realm="hirebridge", error="invalid_token"/);
    for (const bad of ["garbage", tokens.refresh_token, `${tokens.access_token.slice(0, -3)}abc`]) {
      const res = await userinfo(bad);
      assert.deepEqual([res.statusCode, res.json()], [401, { error: "invalid_token", error_description: "Token verification failed" }]);
    }
    assert.equal((await logout({ client_id: "hirebridge", refresh_token: tokens.refresh_token })).statusCode, 204);
    const ended = await userinfo(tokens.access_token);
    assert.equal(ended.statusCode, 401);
    assert.equal(ended.json().error, "invalid_token");
  });

  test("logout ends the session once; errors follow the refresh grant's", async () => {
    const { tokens } = await h.login();
    const missing = await logout({ client_id: "hirebridge" });
    assert.deepEqual([missing.statusCode, missing.json()], [400, { error: "invalid_request", error_description: "No refresh token" }]);
    const noClient = await logout({ refresh_token: tokens.refresh_token });
    assert.deepEqual(
      [noClient.statusCode, noClient.json()],
      [400, { error: "invalid_request", error_description: "Missing parameter: client_id" }],
    );
    const wrongClient = await logout({ client_id: "admin-cli", refresh_token: tokens.refresh_token });
    assert.equal(wrongClient.statusCode, 400);
    assert.equal(wrongClient.json().error, "invalid_grant");
    const bad = await logout({ client_id: "hirebridge", refresh_token: "junk" });
    assert.deepEqual([bad.statusCode, bad.json()], [400, { error: "invalid_grant", error_description: "Invalid refresh token" }]);

    const ok = await logout({ client_id: "hirebridge", refresh_token: tokens.refresh_token });
    assert.equal(ok.statusCode, 204);
    assert.equal(ok.body, "");
    const again = await logout({ client_id: "hirebridge", refresh_token: tokens.refresh_token });
    assert.deepEqual([again.statusCode, again.json()], [400, { error: "invalid_grant", error_description: "Session not active" }]);
    const row = await h.context.sessions.findById(tokens.session_state);
    assert.equal(row?.endedReason, "logout");
  });

  test("browsers may call the endpoints cross-origin (no credentials involved)", async () => {
    const preflight = (path: string, method: string, headers: string) =>
      h.app.inject({
        method: "OPTIONS",
        url: `${OIDC}/${path}`,
        headers: { origin: "http://localhost:5173", "access-control-request-method": method, "access-control-request-headers": headers },
      });
    const userinfo = await preflight("userinfo", "GET", "authorization");
    assert.equal(userinfo.statusCode, 204);
    assert.equal(userinfo.headers["access-control-allow-origin"], "http://localhost:5173");
    assert.match(String(userinfo.headers["access-control-allow-headers"]), /Authorization/);
    assert.equal(userinfo.headers["access-control-allow-credentials"], undefined);
    // What Swagger UI's Authorize sends with a token request (its password flow, client in Basic).
    const swagger = await preflight("token", "POST", "accept,authorization,content-type,x-requested-with");
    assert.equal(swagger.statusCode, 204);
    const allowed = String(swagger.headers["access-control-allow-headers"]).toLowerCase().split(/,\s*/);
    for (const header of ["accept", "authorization", "content-type", "x-requested-with"]) assert.ok(allowed.includes(header), header);
    const { user } = await h.login();
    const res = await h.token(
      { grant_type: "password", client_id: "hirebridge", username: user.username, password: user.password },
      { headers: { origin: "http://localhost:5173" } },
    );
    assert.equal(res.status, 200);
    assert.equal(res.headers["access-control-allow-origin"], "http://localhost:5173");
  });

  test("unknown paths are 404 and the health check answers", async () => {
    assert.equal((await h.app.inject({ url: "/realms/hirebridge/nothing-here" })).statusCode, 404);
    assert.deepEqual((await h.app.inject({ url: "/healthz" })).json(), { status: "ok" });
  });

  test("the stack starts the token service with a banner carrying the demo login and a curl line", async () => {
    const config = loadConfig(ConfigSchema, { LOG_LEVEL: "silent", PASSWORD_HASH_MEMORY_KIB: "1024", PASSWORD_HASH_PASSES: "1" });
    const stack = await startStack(config, ["token"], silentLogger(), { database: getDb(), listen: false });
    try {
      const banner = (await stack.banner()).join("\n");
      assert.match(banner, /http:\/\/127\.0\.0\.1:8080\/realms\/hirebridge/);
      assert.match(banner, /^Demo login {9}demo \/ demo-password/m);
      assert.match(banner, /admin: admin \/ admin-password in realm master/, "the local default's value, not its variable name");
      assert.match(
        banner,
        /curl -s -X POST http:\/\/127\.0\.0\.1:8080\/realms\/hirebridge\/protocol\/openid-connect\/token -d grant_type=password -d client_id=hirebridge -d username=demo -d password=demo-password/,
      );
      const token = stack.services.find((s) => s.name === "token");
      const res = await token!.app.inject({
        method: "POST",
        url: `${OIDC}/token`,
        headers: { "content-type": "application/x-www-form-urlencoded" },
        payload: "grant_type=password&client_id=hirebridge&username=demo&password=demo-password",
      });
      assert.equal(res.statusCode, 200);
    } finally {
      await stack.close();
    }
  });
});
