/**
 * AUTH_ACCESS_TOKEN_ALG=ES256: the token service signs access (and ID) tokens with an EC P-256 key it
 * publishes in its JWKS; the recruiting API and the proxy verify them through that JWKS over real
 * HTTP; refresh tokens stay HS512; a refresh makes exactly one asymmetric signature.
 */
import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { after, before, mock, test } from "node:test";
import { decodeJwt, decodeProtectedHeader } from "jose";
import { asymmetric, encodePart } from "../../../src/services/token/compact-jws.js";
import { tokenRequest } from "../../helpers/auth.js";
import { describeEachDatabase } from "../../helpers/db.js";
import { startTestStack, type TestStack } from "../../helpers/stack.js";
import { buildHarness, kidOf } from "./harness.js";

type Tokens = { access_token: string; refresh_token: string; id_token?: string };

describeEachDatabase("ES256 access tokens (AUTH_ACCESS_TOKEN_ALG=ES256)", (getDb) => {
  let stack: TestStack;
  before(async () => {
    stack = await startTestStack(getDb(), { identity: { AUTH_ACCESS_TOKEN_ALG: "ES256" }, workers: false });
  });
  after(() => stack.close());

  const jwks = async () =>
    ((await (await fetch(`${stack.identity.issuer}/protocol/openid-connect/certs`)).json()) as { keys: Record<string, string>[] }).keys;
  /** What the recruiting API and the proxy answer to `token` on a bearer route each. */
  const bothApis = async (token: string) => {
    const headers = { authorization: `Bearer ${token}` };
    const api = await fetch(`${stack.apiUrl}/org_id`, { headers });
    const proxy = await fetch(`${stack.proxyUrl}/integrations`, { headers });
    return { api: api.status, proxy: proxy.status, orgId: api.ok ? ((await api.json()) as { org_id?: string }).org_id : undefined };
  };
  const refresh = async (refreshToken: string) => {
    const res = await tokenRequest(stack.identity.authUrl, {
      grant_type: "refresh_token",
      client_id: "hirebridge",
      refresh_token: refreshToken,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body as Tokens;
  };

  test("access tokens are ES256 under a published EC key and both APIs accept them; refresh tokens stay HS512", async () => {
    const login = await stack.login();
    const header = decodeProtectedHeader(login.accessToken);
    assert.equal(header.alg, "ES256");
    const published = (await jwks()).find((k) => k["kid"] === header.kid);
    assert.deepEqual(
      { kty: published?.["kty"], crv: published?.["crv"], alg: published?.["alg"], use: published?.["use"], d: published?.["d"] },
      { kty: "EC", crv: "P-256", alg: "ES256", use: "sig", d: undefined },
      "the public half only",
    );
    assert.deepEqual(await bothApis(login.accessToken), { api: 200, proxy: 200, orgId: login.orgId });
    assert.equal(decodeProtectedHeader(login.refreshToken).alg, "HS512");
    const discovery = (await (await fetch(`${stack.identity.issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    assert.deepEqual(discovery["id_token_signing_alg_values_supported"], ["ES256"]);
  });

  test("an ES256 token under the published kid but signed with another EC key is refused by both APIs", async () => {
    const login = await stack.login();
    const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const forged = await asymmetric.sign(
      "ES256",
      `${encodePart(decodeProtectedHeader(login.accessToken))}.${encodePart(decodeJwt(login.accessToken))}`,
      privateKey,
    );
    assert.deepEqual(await bothApis(forged), { api: 401, proxy: 401, orgId: undefined });
    assert.equal((await bothApis(login.accessToken)).api, 200, "control: the real token passes");
  });

  test("a refresh signs exactly one asymmetric signature (the access token), and its tokens work on both APIs", async () => {
    const login = await stack.login();
    const spy = mock.method(asymmetric, "sign");
    try {
      const refreshed = await refresh(login.refreshToken);
      assert.equal(spy.mock.callCount(), 1, "one asymmetric signature per refresh");
      assert.equal(spy.mock.calls[0]!.arguments[0], "ES256");
      assert.equal(decodeProtectedHeader(refreshed.access_token).alg, "ES256");
      assert.equal(decodeProtectedHeader(refreshed.refresh_token).alg, "HS512");
      assert.deepEqual(await bothApis(refreshed.access_token), { api: 200, proxy: 200, orgId: login.orgId });
      // A second refresh, with the HS512 token the first one returned: one signature again.
      await refresh(refreshed.refresh_token);
      assert.equal(spy.mock.callCount(), 2);
    } finally {
      spy.mock.restore();
    }
  });
});

describeEachDatabase("RS256 access tokens (the default)", (getDb) => {
  let stack: TestStack;
  before(async () => {
    stack = await startTestStack(getDb(), { workers: false });
  });
  after(() => stack.close());

  test("a refresh signs exactly one RS256 signature; its access token works on both APIs", async () => {
    const login = await stack.login();
    assert.equal(decodeProtectedHeader(login.accessToken).alg, "RS256");
    const spy = mock.method(asymmetric, "sign");
    try {
      const res = await tokenRequest(stack.identity.authUrl, {
        grant_type: "refresh_token",
        client_id: "hirebridge",
        refresh_token: login.refreshToken,
      });
      assert.equal(res.status, 200);
      assert.deepEqual(
        spy.mock.calls.map((c) => c.arguments[0]),
        ["RS256"],
      );
      const token = (res.body as Tokens).access_token;
      const headers = { authorization: `Bearer ${token}` };
      assert.equal((await fetch(`${stack.apiUrl}/org_id`, { headers })).status, 200);
      assert.equal((await fetch(`${stack.proxyUrl}/integrations`, { headers })).status, 200);
    } finally {
      spy.mock.restore();
    }
  });
});

describeEachDatabase("switching to ES256 and rotating", (getDb) => {
  test("RS256 tokens keep verifying after the switch; a rotation makes a new EC key the signer and keeps the old keys published", async () => {
    const rsa = await buildHarness(getDb());
    const es = await buildHarness(getDb(), { overrides: { AUTH_ACCESS_TOKEN_ALG: "ES256" } });
    try {
      const before = await rsa.login();
      const rsaKid = kidOf(before.tokens.access_token)!;
      const after = await es.login();
      const ecKid = kidOf(after.tokens.access_token)!;
      assert.equal(decodeProtectedHeader(after.tokens.access_token).alg, "ES256");
      const kids = async () =>
        ((await es.app.inject({ url: "/realms/hirebridge/protocol/openid-connect/certs" })).json().keys as { kid: string }[]).map(
          (k) => k.kid,
        );
      assert.deepEqual((await kids()).sort(), [rsaKid, ecKid].sort(), "both keys published");
      const userinfo = (token: string) =>
        es.app.inject({ url: "/realms/hirebridge/protocol/openid-connect/userinfo", headers: { authorization: `Bearer ${token}` } });
      assert.equal((await userinfo(before.tokens.access_token)).statusCode, 200, "the RS256 token still verifies");

      const rotated = await es.rotateKeys();
      assert.ok(rotated.kid !== ecKid && rotated.retired.includes(ecKid) && rotated.retired.includes(rsaKid));
      const next = await es.login();
      assert.deepEqual([kidOf(next.tokens.access_token), decodeProtectedHeader(next.tokens.access_token).alg], [rotated.kid, "ES256"]);
      assert.deepEqual((await kids()).sort(), [rsaKid, ecKid, rotated.kid].sort(), "retired keys stay published while their tokens live");
      for (const token of [before.tokens.access_token, after.tokens.access_token, next.tokens.access_token])
        assert.equal((await userinfo(token)).statusCode, 200);
      assert.equal((await es.refresh(after.tokens.refresh_token)).status, 200, "a refresh token of before the rotation still refreshes");
    } finally {
      await rsa.app.close();
      await es.app.close();
    }
  });
});
