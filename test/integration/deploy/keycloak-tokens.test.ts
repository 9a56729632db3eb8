/**
 * The services trust a Keycloak 26 realm with nothing but AUTH_ISSUER set (AUTH_AUDIENCE keeps its
 * default, `hirebridge`, the realm's public client).
 * A separate process plays Keycloak (test/fixtures/keycloak): discovery and JWKS at Keycloak's paths,
 * tokens with Keycloak's exact header and claims, key rotation on demand. The recruiting API and the
 * proxy are started by the production launcher (startStack → the service factories → build*App),
 * on the machine's Postgres (the production shape; the verifier does not touch storage).
 */
import assert from "node:assert/strict";
import { randomUUID, X509Certificate } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, test } from "node:test";
import { startStack, type RunningStack } from "../../../src/runtime/stack.js";
import { JWKS_COOLDOWN_MS } from "../../../src/shared/auth/verify-jwt.js";
import { startKeycloakProcess, type KeycloakProcess } from "../../fixtures/keycloak/keycloak-process.js";
import { silentLogger, testConfig } from "../../helpers/config.js";
import { freshDatabase } from "../../helpers/db.js";
import { freePort } from "../../helpers/ports.js";
import { startSandbox, TEST_DEMO_ORG_ID, type TestSandbox } from "../../helpers/sandbox.js";
import { call } from "../../helpers/stack.js";

/** Scheduling slack on top of the cooldown bound (two services, a loaded two-core machine). */
const SLACK_MS = 2000;
const b64json = (part: string) => JSON.parse(Buffer.from(part, "base64url").toString("utf8")) as Record<string, unknown>;

describe("services against Keycloak-shaped tokens from a separate JWKS process", () => {
  let kc: KeycloakProcess;
  let sandbox: TestSandbox;
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let stack: RunningStack;
  let api: string;
  let proxy: string;
  /** The sandbox's demo organisation, which owns its demo integration. */
  const org = { id: TEST_DEMO_ORG_ID };
  /** A token of the first signing key, which the first rotation leaves passive. */
  let passiveKeyToken = "";

  before(async () => {
    [kc, sandbox, database] = await Promise.all([startKeycloakProcess(), startSandbox(), freshDatabase("postgres")]);
    const [apiPort, proxyPort] = [await freePort(), await freePort()];
    const config = testConfig({
      AUTH_ISSUER: kc.issuer, // the only identity-provider setting: discovery finds the JWKS
      HOST: "127.0.0.1",
      API_PORT: apiPort,
      PROXY_PORT: proxyPort,
      UPSTREAM_BASE_URL: sandbox.url,
      UPSTREAM_API_KEY: sandbox.apiKey,
      UPSTREAM_WEBHOOK_SECRET: sandbox.webhookSecret,
      WORKERS: "false",
    });
    stack = await startStack(config, ["api", "proxy"], silentLogger(), { database });
    api = `http://127.0.0.1:${apiPort}/api/v1`;
    proxy = `http://127.0.0.1:${proxyPort}/api/v1`;
  });
  after(async () => {
    await stack?.close();
    await sandbox?.close();
    await database?.dispose();
    if (kc) assert.equal(await kc.stop(), 0, "the fake Keycloak process exits cleanly");
  });

  const orgId = async (token: string) => call<{ org_id?: string; detail?: string }>(`${api}/org_id`, { token });
  const integration = (token: string) => call(`${proxy}/integrations/${encodeURIComponent(sandbox.demoIntegrationId)}`, { token });

  test("the stand-in serves discovery and the JWKS at Keycloak's paths and signs like Keycloak 26", async () => {
    const disco = (await call<Record<string, unknown>>(`${kc.issuer}/.well-known/openid-configuration`)).body;
    assert.equal(disco["issuer"], kc.issuer);
    assert.equal(disco["jwks_uri"], `${kc.issuer}/protocol/openid-connect/certs`);
    const { keys } = (await call<{ keys: Record<string, string | string[]>[] }>(`${kc.issuer}/protocol/openid-connect/certs`)).body;
    assert.deepEqual(keys.map((k) => `${k["alg"]}/${k["use"]}`).sort(), ["RS256/sig", "RSA-OAEP/enc"]);
    for (const key of keys) {
      const cert = new X509Certificate(Buffer.from(key["x5c"]![0]!, "base64"));
      assert.equal(cert.subject, "CN=hirebridge");
      assert.equal((cert.publicKey.export({ format: "jwk" }) as { n: string }).n, key["n"], "x5c holds the published key");
    }
    const { token, kid } = await kc.mint({ org_id: org.id });
    const [header, payload] = token.split(".") as [string, string];
    assert.equal(Buffer.from(header, "base64url").toString(), `{"alg":"RS256","typ" : "JWT","kid" : "${kid}"}`);
    const claims = b64json(payload);
    assert.deepEqual(Object.keys(claims), [
      "exp",
      "iat",
      "jti",
      "iss",
      "aud",
      "sub",
      "typ",
      "azp",
      "sid",
      "acr",
      "allowed-origins",
      "realm_access",
      "resource_access",
      "scope",
      "email_verified",
      "name",
      "preferred_username",
      "given_name",
      "family_name",
      "email",
      "org_id",
    ]);
    assert.equal(claims["iss"], kc.issuer);
    assert.equal(claims["aud"], "account");
    assert.equal(claims["azp"], "hirebridge");
    assert.equal((claims["exp"] as number) - (claims["iat"] as number), 1800);
    assert.match(claims["jti"] as string, /^onrtro:[0-9a-f-]{36}$/);
  });

  test("the recruiting API answers /org_id and tenant routes for an unchanged Keycloak token", async () => {
    const { token } = await kc.mint({ org_id: org.id });
    assert.deepEqual(await orgId(token), { status: 200, body: { org_id: org.id } });
    const created = await call<Record<string, unknown>>(`${api}/org/${org.id}/position`, {
      method: "POST",
      token,
      body: { name: "Keycloak-trusted role" },
    });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    assert.equal(created.body["name"], "Keycloak-trusted role");
    const list = await call<{ items: Record<string, unknown>[] }>(`${api}/org/${org.id}/position`, { token });
    assert.deepEqual(list, { status: 200, body: { items: [created.body] } });
    // A token of another organisation is refused on this one's path.
    const other = await kc.mint({ org_id: randomUUID() });
    const foreign = await call(`${api}/org/${org.id}/position`, { token: other.token });
    assert.deepEqual(foreign, { status: 403, body: { detail: "The access token does not grant access to this organization" } });
    // A user without the org_id attribute gets no claim from the mapper.
    assert.deepEqual(await orgId((await kc.mint({ org_id: null })).token), {
      status: 403,
      body: { detail: "The access token has no org_id claim" },
    });
  });

  test("the proxy serves the organisation's integration, unchanged from the upstream, and hides it from others", async () => {
    const { token } = await kc.mint({ org_id: org.id });
    const upstream = await fetch(`${sandbox.url}/integrations/${encodeURIComponent(sandbox.demoIntegrationId)}`, {
      headers: { authorization: `Bearer ${sandbox.apiKey}` },
    });
    assert.deepEqual(await integration(token), { status: 200, body: await upstream.json() });
    const other = await kc.mint({ org_id: randomUUID() });
    assert.deepEqual(await integration(other.token), { status: 404, body: { detail: "Integration not found" } });
  });

  test("by default both APIs require the audience: met through aud, azp or client_id; a token without it is refused 401", async () => {
    const notForUs = { status: 401, body: { detail: "Invalid token: token is not meant for this service" } };
    // Keycloak's client-credentials tokens and RFC 9068 access tokens name the client in client_id.
    const rfc9068 = await kc.mint({ org_id: org.id, claims: { azp: null, client_id: "hirebridge" } });
    assert.equal(b64json(rfc9068.token.split(".")[1]!)["azp"], undefined, "no azp: client_id alone names the client");
    assert.deepEqual(await orgId(rfc9068.token), { status: 200, body: { org_id: org.id } });
    assert.equal((await integration(rfc9068.token)).status, 200);
    // Another client (the console, say) whose audience mapper adds the APIs' audience.
    const mapped = await kc.mint({ org_id: org.id, azp: "hirebridge-console", claims: { aud: ["hirebridge", "account"] } });
    assert.deepEqual(await orgId(mapped.token), { status: 200, body: { org_id: org.id } });
    assert.equal((await integration(mapped.token)).status, 200);
    // Without the mapper: aud "account" only, issued to another client, in azp and in client_id.
    for (const claims of [{}, { client_id: "another-client" }, { aud: ["another-service", "account"] }]) {
      const unmapped = await kc.mint({ org_id: org.id, azp: "another-client", claims });
      assert.deepEqual(await orgId(unmapped.token), notForUs, JSON.stringify(claims));
      assert.deepEqual(await integration(unmapped.token), notForUs, JSON.stringify(claims));
    }
  });

  test("AUTH_AUDIENCE is met through azp; another client's, another issuer's and expired tokens are refused", async () => {
    const refused = (detail: string) => ({ status: 401, body: { detail: `Invalid token: ${detail}` } });
    const refreshed = await kc.mint({ org_id: org.id, grant: "refresh_token" }); // aud "account", azp "hirebridge"
    assert.deepEqual(await orgId(refreshed.token), { status: 200, body: { org_id: org.id } });
    const otherClient = await kc.mint({ org_id: org.id, azp: "another-client" });
    assert.deepEqual(await orgId(otherClient.token), refused("token is not meant for this service"));
    assert.deepEqual(await integration(otherClient.token), refused("token is not meant for this service"));
    const otherRealm = await kc.mint({ org_id: org.id, claims: { iss: kc.issuer.replace(/hirebridge$/, "other") } });
    assert.deepEqual(await orgId(otherRealm.token), refused("token was issued by an untrusted issuer"));
    const expired = await kc.mint({ org_id: org.id, expires_in: -120 });
    assert.deepEqual(await orgId(expired.token), refused("token has expired"));
    const refreshToken = await kc.mint({ org_id: org.id, claims: { typ: "Refresh" } });
    assert.deepEqual(await orgId(refreshToken.token), refused("token is not an access token"));
  });

  test("a flood of unknown kids costs the issuer at most one JWKS fetch per cooldown", async () => {
    const { token } = await kc.mint({ org_id: org.id });
    const [, payload, signature] = token.split(".");
    const before = (await kc.requests()).certs.length;
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => {
        const header = Buffer.from(`{"alg":"RS256","typ" : "JWT","kid" : "${randomUUID()}"}`).toString("base64url");
        return orgId(`${header}.${payload}.${signature}`);
      }),
    );
    for (const a of answers) assert.deepEqual(a, { status: 401, body: { detail: "Invalid token: token signing key is unknown" } });
    assert.ok((await kc.requests()).certs.length - before <= 1);
  });

  /** Presents `token` to both services until both accept it; answers when that happened. */
  async function acceptedBy(token: string, deadline: number): Promise<number> {
    for (;;) {
      const [a, p] = await Promise.all([orgId(token), integration(token)]);
      if (a.status === 200 && p.status === 200) return Date.now();
      for (const r of [a, p].filter((x) => x.status !== 200)) {
        assert.deepEqual(r, { status: 401, body: { detail: "Invalid token: token signing key is unknown" } });
      }
      assert.ok(Date.now() < deadline, "a rotated key must be accepted within the JWKS cooldown");
      await sleep(200);
    }
  }

  /** Rotates, and proves the new key is accepted no later than one cooldown after the last JWKS fetch. */
  async function rotate(previous: "passive" | "disabled") {
    const lastFetch = Math.max(...(await kc.requests()).certs);
    const rotation = await kc.rotate(previous);
    const rotatedAt = Date.now();
    const fresh = await kc.mint({ org_id: org.id });
    assert.equal(fresh.kid, rotation.kid);
    const deadline = Math.max(rotatedAt, lastFetch + JWKS_COOLDOWN_MS) + SLACK_MS;
    await acceptedBy(fresh.token, deadline);
    const refetches = (await kc.requests()).certs.filter((t) => t > rotatedAt).length;
    assert.ok(refetches >= 2, `each service refetched the JWKS on the new kid (${refetches})`);
    return rotation;
  }

  test("key rotation mid-run, old key kept (passive): new tokens are accepted within the cooldown, old ones still verify", async () => {
    const old = await kc.mint({ org_id: org.id });
    assert.deepEqual((await orgId(old.token)).status, 200);
    const { previous } = await rotate("passive");
    assert.equal(previous, old.kid);
    assert.deepEqual(await orgId(old.token), { status: 200, body: { org_id: org.id } });
    assert.equal((await integration(old.token)).status, 200);
    passiveKeyToken = old.token;
  });

  test("key rotation mid-run, old key disabled (unpublished): its tokens are refused with 401", async () => {
    const used = await kc.mint({ org_id: org.id });
    assert.equal((await orgId(used.token)).status, 200);
    const unused = await kc.mint({ org_id: org.id }); // never shown to the proxy's verified-token cache
    const { previous } = await rotate("disabled");
    assert.equal(previous, used.kid);
    const gone = { status: 401, body: { detail: "Invalid token: token signing key is unknown" } };
    assert.deepEqual(await orgId(used.token), gone);
    assert.deepEqual(await orgId(unused.token), gone);
    assert.deepEqual(await integration(unused.token), gone);
    // The first key, passive since the first rotation, is still published and still verifies.
    assert.deepEqual(await orgId(passiveKeyToken), { status: 200, body: { org_id: org.id } });
    const keys = (await call<{ keys: { kid: string }[] }>(`${kc.issuer}/protocol/openid-connect/certs`)).body.keys.map((k) => k.kid);
    assert.ok(!keys.includes(previous), "the disabled key is unpublished");
  });
});
