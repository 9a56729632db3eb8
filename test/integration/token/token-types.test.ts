import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { exportJWK, generateKeyPair, SignJWT, type JWTPayload } from "jose";
import { bearerAuth, principalOf } from "../../../src/shared/auth/bearer.plugin.js";
import { verifierFromConfig } from "../../../src/shared/auth/verify-jwt.js";
import { createApp, type App } from "../../../src/shared/http/create-app.js";
import { silentLogger, testConfig } from "../../helpers/config.js";
import { describeEachDatabase } from "../../helpers/db.js";
import { freePort } from "../../helpers/ports.js";
import { buildHarness, claims, type Harness } from "./harness.js";

/**
 * Issue 38, defect 7: what a resource server takes as an access token, over real HTTP. A protected
 * route behind the bearer hook, its verifier built from the configuration as the APIs build it.
 */
async function protectedServer(issuer: string, env: Record<string, string> = {}): Promise<{ url: string; close: () => Promise<void> }> {
  const config = testConfig(env);
  const app: App = createApp({ service: "test", logger: silentLogger() });
  app.register(async (scope) => {
    scope.addHook("onRequest", bearerAuth(verifierFromConfig(config, issuer)));
    scope.get("/whoami", async (request) => ({ sub: principalOf(request).sub }));
  });
  await app.listen({ host: "127.0.0.1", port: 0 });
  return { url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/whoami`, close: () => app.close() };
}

async function call(url: string, token: string): Promise<{ status: number; detail?: string; sub?: string }> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, ...((await res.json()) as { detail?: string; sub?: string }) };
}

describeEachDatabase("access tokens are told apart by their type and refused when issued in the future", (getDb) => {
  let h: Harness;
  let issuer: string;
  let strict: { url: string; close: () => Promise<void> };
  let lenient: { url: string; close: () => Promise<void> };
  before(async () => {
    const port = await freePort();
    h = await buildHarness(getDb(), { overrides: { AUTH_PORT: port } });
    await h.app.listen({ host: "127.0.0.1", port });
    issuer = `http://127.0.0.1:${port}/realms/hirebridge`;
    strict = await protectedServer(issuer);
    lenient = await protectedServer(issuer, { AUTH_REQUIRE_TOKEN_TYPE: "false" });
  });
  after(async () => {
    await strict.close();
    await lenient.close();
    await h.app.close();
  });

  /** A token signed by the token service's real key: a real access token's claims, changed. */
  const signed = async (change: (c: JWTPayload) => JWTPayload) => {
    const { tokens } = await h.login();
    return h.context.keys.sign(change(claims(tokens.access_token)));
  };

  test("iat a day ahead is refused; within the clock skew it is accepted", async () => {
    const now = Math.floor(Date.now() / 1000);
    const future = await signed((c) => ({ ...c, iat: now + 86_400, exp: now + 86_400 + 300 }));
    assert.deepEqual(await call(strict.url, future), { status: 401, detail: "Invalid token: token is issued in the future" });
    const slightlyAhead = await signed((c) => ({ ...c, iat: now + 20 }));
    assert.equal((await call(strict.url, slightlyAhead)).status, 200, "20 s ahead is within the 30 s skew");
    const pastSkew = await signed((c) => ({ ...c, iat: now + 90 }));
    assert.equal((await call(strict.url, pastSkew)).status, 401);
  });

  test("a token without typ is refused unless AUTH_REQUIRE_TOKEN_TYPE=false; other types always", async () => {
    const { tokens } = await h.login();
    assert.equal((await call(strict.url, tokens.access_token)).status, 200, "the service's own access tokens say typ Bearer");
    const untyped = await signed(({ typ: _typ, ...c }) => c);
    assert.deepEqual(await call(strict.url, untyped), {
      status: 401,
      detail: "Invalid token: token does not say it is an access token (typ)",
    });
    assert.equal((await call(lenient.url, untyped)).status, 200, "the setting for issuers that set no type");
    for (const typ of ["ID", "Refresh", "bearer", "Logout"]) {
      const other = await signed((c) => ({ ...c, typ }));
      for (const server of [strict, lenient]) {
        assert.deepEqual(await call(server.url, other), { status: 401, detail: "Invalid token: token is not an access token" }, typ);
      }
    }
  });

  test("the service's real ID token (scope openid) is refused as an access token", async () => {
    const user = await h.newUser();
    const res = await h.password(user.username, user.password, { scope: "openid" });
    assert.equal(res.status, 200);
    const idToken = res.body.id_token as string;
    assert.equal(claims(idToken)["typ"], "ID");
    assert.equal((await call(strict.url, res.body.access_token as string)).status, 200);
    for (const server of [strict, lenient]) {
      assert.deepEqual(await call(server.url, idToken), { status: 401, detail: "Invalid token: token is not an access token" });
    }
  });
});

/** An issuer of RFC 9068 access tokens: header `typ: at+jwt`, no `typ` claim. */
async function rfc9068Issuer() {
  const { privateKey, publicKey } = await generateKeyPair("ES256");
  const jwk = { ...(await exportJWK(publicKey)), kid: "at-1", alg: "ES256", use: "sig" };
  let issuer = "";
  const server: Server = createServer((req, res) => {
    res.setHeader("content-type", "application/json");
    if (req.url === "/.well-known/openid-configuration") res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks` }));
    else if (req.url === "/jwks") res.end(JSON.stringify({ keys: [jwk] }));
    else res.writeHead(404).end("{}");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const now = Math.floor(Date.now() / 1000);
  const mint = (typ: string, extra: JWTPayload = {}) =>
    new SignJWT({ iss: issuer, sub: "svc-1", aud: "hirebridge", client_id: "hirebridge", iat: now, exp: now + 300, jti: "j1", ...extra })
      .setProtectedHeader({ alg: "ES256", kid: "at-1", typ })
      .sign(privateKey);
  return { issuer, mint, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

test("RFC 9068: header typ at+jwt is an access token; other header types are refused", async (t) => {
  const idp = await rfc9068Issuer();
  const api = await protectedServer(idp.issuer);
  t.after(async () => {
    await api.close();
    await idp.close();
  });
  assert.deepEqual(await call(api.url, await idp.mint("at+jwt")), { status: 200, sub: "svc-1" });
  assert.deepEqual(await call(api.url, await idp.mint("application/at+JWT")), { status: 200, sub: "svc-1" });
  assert.deepEqual(await call(api.url, await idp.mint("JWT")), {
    status: 401,
    detail: "Invalid token: token does not say it is an access token (typ)",
  });
  for (const typ of ["logout+jwt", "secevent+jwt", "dpop+jwt"]) {
    assert.deepEqual(await call(api.url, await idp.mint(typ)), { status: 401, detail: "Invalid token: token is not an access token" }, typ);
  }
  assert.deepEqual(await call(api.url, await idp.mint("at+jwt", { typ: "ID" })), {
    status: 401,
    detail: "Invalid token: token is not an access token",
  });
});
