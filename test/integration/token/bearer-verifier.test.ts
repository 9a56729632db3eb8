import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { Writable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, test } from "node:test";
import { exportJWK, exportSPKI, generateKeyPair, importJWK, SignJWT, type JWK, type JWTPayload } from "jose";
import { pino } from "pino";
import { bearerAuth, principalOf } from "../../../src/shared/auth/bearer.plugin.js";
import { createVerifier, type VerifierOptions } from "../../../src/shared/auth/verify-jwt.js";
import { createApp, type App } from "../../../src/shared/http/create-app.js";
import { describeEachDatabase } from "../../helpers/db.js";
import { freePort } from "../../helpers/ports.js";
import { buildHarness, claims, type Harness } from "./harness.js";

/** A protected no-op route behind the shared bearer hook, logging everything into `logs`. */
function protectedApp(verifyOpts: VerifierOptions): { app: App; logs: string[] } {
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logs.push(String(chunk));
      cb();
    },
  });
  const app = createApp({ service: "test", logger: pino({ level: "trace" }, sink) });
  const verify = createVerifier(verifyOpts);
  app.register(async (scope) => {
    scope.addHook("onRequest", bearerAuth(verify));
    scope.get("/whoami", async (request) => {
      const { sub, orgId, username, email } = principalOf(request);
      return { sub, orgId, username, email };
    });
  });
  return { app, logs };
}

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");

describeEachDatabase("shared bearer verifier against the real token service", (getDb) => {
  let h: Harness;
  let issuer: string;
  let certsFetches = 0;
  before(async () => {
    const port = await freePort();
    h = await buildHarness(getDb(), { overrides: { AUTH_PORT: port } });
    h.app.addHook("onRequest", async (request) => {
      if (request.url.endsWith("/protocol/openid-connect/certs")) certsFetches++;
    });
    await h.app.listen({ host: "127.0.0.1", port });
    issuer = `http://127.0.0.1:${port}/realms/hirebridge`;
  });
  after(() => h.app.close());

  const expect401 = async (app: App, logs: string[], header: string | undefined, detail: string | RegExp) => {
    const res = await call(app, header);
    assert.equal(res.statusCode, 401, `${header?.slice(0, 30)} → ${res.body}`);
    assert.equal(res.headers["www-authenticate"], 'Bearer error="invalid_token"');
    const body = res.json() as { detail: string };
    assert.deepEqual(Object.keys(body), ["detail"]);
    if (typeof detail === "string") assert.equal(body.detail, detail);
    else assert.match(body.detail, detail);
    const token = header?.replace(/^Bearer\s+/i, "") ?? "";
    for (const part of token.split(".").filter((p) => p.length > 8)) {
      assert.ok(!res.body.includes(part), "no part of the token in the answer");
      assert.ok(!logs.join("").includes(part), "no part of the token in the logs");
    }
  };

  /** A token signed by the service's real key, with chosen claims. */
  const signed = async (overrides: JWTPayload) => {
    const { tokens } = await h.login();
    return h.context.keys.sign({ ...claims(tokens.access_token), ...overrides });
  };

  test("a valid access token reaches the route with its principal", async () => {
    const { app, logs } = protectedApp({ issuer });
    const { user, tokens } = await h.login();
    const res = await call(app, `Bearer ${tokens.access_token}`);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { sub: user.id, orgId: user.orgId, username: user.username, email: `${user.username}@example.test` });
    assert.ok(!logs.join("").includes(tokens.access_token.split(".")[1]!), "the token is not logged");

    // AUTH_JWKS_URL: keys from the given URL, no discovery round-trip.
    const direct = protectedApp({ issuer, jwksUrl: `${issuer}/protocol/openid-connect/certs` });
    assert.equal((await call(direct.app, `Bearer ${tokens.access_token}`)).statusCode, 200);
  });

  test("missing and malformed Authorization headers are 401", async () => {
    const { app, logs } = protectedApp({ issuer });
    await expect401(app, logs, undefined, "Not authenticated");
    await expect401(app, logs, "Basic dXNlcjpwYXNz", "Authorization header must be 'Bearer <token>'");
    await expect401(app, logs, "Bearer", "Authorization header must be 'Bearer <token>'");
    await expect401(app, logs, "Bearer not-a-jwt", "Invalid token: token is malformed or invalid");
  });

  test("a tampered payload fails the signature check", async () => {
    const { app, logs } = protectedApp({ issuer });
    const { tokens } = await h.login();
    const [head, , sig] = tokens.access_token.split(".");
    const forged = b64({ ...claims(tokens.access_token), org_id: "00000000-0000-4000-8000-000000000000" });
    await expect401(app, logs, `Bearer ${head}.${forged}.${sig}`, "Invalid token: token signature is invalid");
  });

  test("expired and not-yet-valid tokens are refused, within a small clock skew", async () => {
    const { app, logs } = protectedApp({ issuer, clockToleranceSeconds: 30 });
    const now = Math.floor(Date.now() / 1000);
    await expect401(app, logs, `Bearer ${await signed({ iat: now - 4000, exp: now - 60 })}`, "Invalid token: token has expired");
    await expect401(app, logs, `Bearer ${await signed({ nbf: now + 3600 })}`, "Invalid token: token is not yet valid");
    assert.equal((await call(app, `Bearer ${await signed({ exp: now - 10 })}`)).statusCode, 200, "10 s late is within the skew");
  });

  test("alg none and HMAC signed with the public key are refused", async () => {
    const { app, logs } = protectedApp({ issuer });
    const { tokens } = await h.login();
    const payload = tokens.access_token.split(".")[1]!;
    const kid = JSON.parse(Buffer.from(tokens.access_token.split(".")[0]!, "base64url").toString()).kid as string;
    await expect401(app, logs, `Bearer ${b64({ alg: "none", typ: "JWT", kid })}.${payload}.`, /^Invalid token: /);

    const jwk = (await h.context.keys.jwks()).keys.find((k) => k.kid === kid) as JWK;
    const pem = await exportSPKI((await importJWK(jwk, "RS256")) as CryptoKey);
    for (const secret of [pem, JSON.stringify(jwk), jwk.n!]) {
      const hmac = await new SignJWT(claims(tokens.access_token))
        .setProtectedHeader({ alg: "HS256", typ: "JWT", kid })
        .sign(new TextEncoder().encode(secret));
      await expect401(app, logs, `Bearer ${hmac}`, "Invalid token: token algorithm is not allowed");
    }
  });

  test("a token from a key the issuer never published is refused", async () => {
    const { app, logs } = protectedApp({ issuer, jwksCooldownMs: 0 });
    const { privateKey } = await generateKeyPair("RS256");
    const { tokens } = await h.login();
    const realKid = JSON.parse(Buffer.from(tokens.access_token.split(".")[0]!, "base64url").toString()).kid as string;
    const foreign = (kid: string) =>
      new SignJWT(claims(tokens.access_token)).setProtectedHeader({ alg: "RS256", typ: "JWT", kid }).sign(privateKey);
    await expect401(app, logs, `Bearer ${await foreign("not-a-published-kid")}`, "Invalid token: token signing key is unknown");
    await expect401(app, logs, `Bearer ${await foreign(realKid)}`, "Invalid token: token signature is invalid");
  });

  test("wrong issuer, refresh tokens and foreign audiences are refused", async () => {
    const { app, logs } = protectedApp({ issuer });
    await expect401(
      app,
      logs,
      `Bearer ${await signed({ iss: "http://evil.example/realms/hirebridge" })}`,
      "Invalid token: token was issued by an untrusted issuer",
    );
    const { tokens } = await h.login();
    // Refresh tokens are HS512 under a key no resource server has (as Keycloak's): refused on the
    // algorithm before anything else. An RS256 one (the previous release's) fails on its `typ`.
    await expect401(app, logs, `Bearer ${tokens.refresh_token}`, "Invalid token: token algorithm is not allowed");
    await expect401(app, logs, `Bearer ${await signed({ typ: "Refresh" })}`, "Invalid token: token is not an access token");

    const forClient = protectedApp({ issuer, audience: "hirebridge" });
    assert.equal((await call(forClient.app, `Bearer ${tokens.access_token}`)).statusCode, 200, "azp names the client");
    const forOther = protectedApp({ issuer, audience: "another-service" });
    await expect401(forOther.app, forOther.logs, `Bearer ${tokens.access_token}`, "Invalid token: token is not meant for this service");
  });

  test("the JWKS is cached, refetched on an unknown kid at most once per cooldown, and picks up a rotated key", async () => {
    const cooldownMs = 1500;
    const { app } = protectedApp({ issuer, jwksCooldownMs: cooldownMs });
    const { tokens } = await h.login();
    const { privateKey } = await generateKeyPair("RS256");
    const forged = await new SignJWT(claims(tokens.access_token)).setProtectedHeader({ alg: "RS256", kid: "forged" }).sign(privateKey);
    const start = certsFetches;

    assert.equal((await call(app, `Bearer ${tokens.access_token}`)).statusCode, 200);
    const firstFetchAt = Date.now();
    assert.equal((await call(app, `Bearer ${tokens.access_token}`)).statusCode, 200);
    assert.equal(certsFetches - start, 1, "one fetch serves many requests");
    // Within the cooldown an unknown kid costs no fetch, so a forged-kid flood cannot hammer the issuer.
    assert.equal((await call(app, `Bearer ${forged}`)).statusCode, 401);
    assert.equal((await call(app, `Bearer ${forged}`)).statusCode, 401);
    assert.equal(certsFetches - start, 1);

    await h.rotateKeys();
    const rotated = await h.login();
    await sleep(Math.max(0, firstFetchAt + cooldownMs + 100 - Date.now()));
    // After the cooldown the new kid triggers one refetch and the rotated key verifies.
    assert.equal((await call(app, `Bearer ${rotated.tokens.access_token}`)).statusCode, 200);
    assert.equal((await call(app, `Bearer ${tokens.access_token}`)).statusCode, 200, "the retired key still verifies");
    assert.equal(certsFetches - start, 2);
  });

  test("an unreachable issuer is 503, not 401 or 500", async () => {
    const { app } = protectedApp({ issuer: `http://127.0.0.1:${await freePort()}/realms/hirebridge` });
    const { tokens } = await h.login();
    const res = await call(app, `Bearer ${tokens.access_token}`);
    assert.deepEqual([res.statusCode, res.json()], [503, { detail: "Token verification is temporarily unavailable" }]);
  });
});

/** A stand-in for a real Keycloak realm: discovery and JWKS on loopback, tokens shaped like Keycloak's. */
async function keycloakRealm(alg: "RS256" | "ES256") {
  const { privateKey, publicKey } = await generateKeyPair(alg);
  const kid = `kc-${alg}`;
  const jwk = { ...(await exportJWK(publicKey)), kid, alg, use: "sig" };
  let issuer = "";
  const server: Server = createServer((req, res) => {
    res.setHeader("content-type", "application/json");
    if (req.url === "/realms/acme/.well-known/openid-configuration") {
      res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/protocol/openid-connect/certs` }));
    } else if (req.url === "/realms/acme/protocol/openid-connect/certs") {
      res.end(JSON.stringify({ keys: [jwk] }));
    } else {
      res.statusCode = 404;
      res.end("{}");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  issuer = `http://127.0.0.1:${port}/realms/acme`;
  const now = Math.floor(Date.now() / 1000);
  // Keycloak 24/25's claim set, as in the reference (§3.4), plus the org_id attribute mapper.
  const token = await new SignJWT({
    exp: now + 300,
    iat: now,
    auth_time: now,
    jti: "onrtac:5f1a6b0e-2d4c-4b8a-9e7f-1a2b3c4d5e6f",
    iss: issuer,
    aud: ["realm-management", "account"],
    sub: "f8b2c9d4-1e3a-4b5c-8d7e-9f0a1b2c3d4e",
    typ: "Bearer",
    azp: "hirebridge",
    sid: "2c1f0e9d-8b7a-4c6d-9e5f-4a3b2c1d0e9f",
    acr: "1",
    "allowed-origins": ["http://localhost:3000"],
    realm_access: { roles: ["default-roles-acme", "offline_access", "uma_authorization"] },
    resource_access: { account: { roles: ["manage-account", "view-profile"] } },
    scope: "openid profile email",
    email_verified: true,
    name: "Kay Cloak",
    preferred_username: "kay",
    given_name: "Kay",
    family_name: "Cloak",
    email: "kay@acme.example",
    org_id: "11111111-2222-4333-8444-555555555555",
  })
    .setProtectedHeader({ alg, typ: "JWT", kid })
    .sign(privateKey);
  return { issuer, token, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

for (const alg of ["RS256", "ES256"] as const) {
  test(`tokens of a real Keycloak realm (${alg}) are accepted unchanged with AUTH_ISSUER set to the realm`, async (t) => {
    const realm = await keycloakRealm(alg);
    t.after(realm.close);
    const { app } = protectedApp({ issuer: realm.issuer, audience: "hirebridge" });
    const res = await call(app, `Bearer ${realm.token}`);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), {
      sub: "f8b2c9d4-1e3a-4b5c-8d7e-9f0a1b2c3d4e",
      orgId: "11111111-2222-4333-8444-555555555555",
      username: "kay",
      email: "kay@acme.example",
    });
  });
}

function call(app: App, token?: string) {
  return app.inject({ url: "/whoami", headers: token === undefined ? {} : { authorization: token } });
}
