/**
 * Audience by default: the embedded token service puts the APIs' audience (AUTH_AUDIENCE, default
 * `hirebridge`) in the access tokens of its application clients, and the recruiting API and the
 * proxy, started by the production launcher with nothing about audiences configured, accept those
 * and refuse with 401 a token of the same issuer without it (`admin-cli` of the app realm, which has
 * no audience mapper, as in Keycloak).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { startStack, type RunningStack } from "../../../src/runtime/stack.js";
import { silentLogger, testConfig } from "../../helpers/config.js";
import { freshDatabase } from "../../helpers/db.js";
import { freePort } from "../../helpers/ports.js";
import { startSandbox, type TestSandbox } from "../../helpers/sandbox.js";
import { call } from "../../helpers/stack.js";
import { tokenRequest } from "../../helpers/auth.js";

const claimsOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split(".")[1]!, "base64url").toString("utf8")) as Record<string, unknown>;

describe("the APIs' audience, checked by default against the embedded token service", () => {
  let sandbox: TestSandbox;
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let stack: RunningStack;
  let config: ReturnType<typeof testConfig>;
  let api: string;
  let proxy: string;
  let realmUrl: string;

  before(async () => {
    [sandbox, database] = await Promise.all([startSandbox(), freshDatabase("pglite")]);
    config = testConfig({
      HOST: "127.0.0.1",
      AUTH_PORT: await freePort(),
      API_PORT: await freePort(),
      PROXY_PORT: await freePort(),
      UPSTREAM_BASE_URL: sandbox.url,
      UPSTREAM_API_KEY: sandbox.apiKey,
      UPSTREAM_WEBHOOK_SECRET: sandbox.webhookSecret,
      WORKERS: "false",
      PASSWORD_HASH_MEMORY_KIB: 1024,
      PASSWORD_HASH_PASSES: 1,
    });
    stack = await startStack(config, ["token", "api", "proxy"], silentLogger(), { database });
    api = `http://127.0.0.1:${config.API_PORT}/api/v1`;
    proxy = `http://127.0.0.1:${config.PROXY_PORT}/api/v1`;
    realmUrl = `http://127.0.0.1:${config.AUTH_PORT}/realms/${config.AUTH_REALM}`;
  });
  after(async () => {
    await stack?.close();
    await sandbox?.close();
    await database?.dispose();
  });

  const demoToken = async (clientId: string) => {
    const res = await tokenRequest(realmUrl, {
      grant_type: "password",
      client_id: clientId,
      username: "demo",
      password: config.DEMO_PASSWORD,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return (res.body as { access_token: string }).access_token;
  };
  const both = async (token: string) => [
    (await call(`${api}/org_id`, { token })).status,
    (await call(`${proxy}/integrations/${encodeURIComponent(sandbox.demoIntegrationId)}`, { token })).status,
  ];

  test("the default AUTH_AUDIENCE is the application client's id", () => {
    assert.equal(config.AUTH_AUDIENCE, "hirebridge");
  });

  test("a token of the application client names the audience in aud and is accepted by both APIs", async () => {
    const token = await demoToken(config.AUTH_CLIENT_ID);
    assert.deepEqual(claimsOf(token)["aud"], ["hirebridge", "account"]);
    assert.deepEqual(await both(token), [200, 200]);
  });

  test("a token of the same issuer without the audience is refused 401 by both APIs", async () => {
    const token = await demoToken("admin-cli");
    const claims = claimsOf(token);
    assert.deepEqual([claims["aud"], claims["azp"]], ["account", "admin-cli"]);
    const notForUs = { status: 401, body: { detail: "Invalid token: token is not meant for this service" } };
    assert.deepEqual(await call(`${api}/org_id`, { token }), notForUs);
    assert.deepEqual(await call(`${api}/org/${config.DEMO_ORG_ID}/position`, { token }), notForUs);
    assert.deepEqual(await call(`${proxy}/integrations/${encodeURIComponent(sandbox.demoIntegrationId)}`, { token }), notForUs);
  });
});
