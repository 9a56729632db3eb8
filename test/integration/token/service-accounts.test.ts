/**
 * Service accounts (issue 42): an organisation's confidential clients for machines, managed on the
 * recruiting API by a person, used at the token endpoint with grant_type=client_credentials. Over
 * real HTTP against the production launcher's stack (token, api, proxy), on PGlite and Postgres.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Writable } from "node:stream";
import { after, before, describe, test } from "node:test";
import { pino } from "pino";
import { runCli } from "../../../src/cli/program.js";
import { Hirebridge } from "../../../src/client/index.js";
import type { ServiceAccount, ServiceAccountCreated, ServiceAccountList } from "../../../src/contracts/service-accounts/index.js";
import { startStack, type RunningStack } from "../../../src/runtime/stack.js";
import { tokenRequest } from "../../helpers/auth.js";
import { testConfig } from "../../helpers/config.js";
import { DB_KINDS, freshDatabase } from "../../helpers/db.js";
import { freePort } from "../../helpers/ports.js";
import { startSandbox, type TestSandbox } from "../../helpers/sandbox.js";
import { call } from "../../helpers/stack.js";

/** The `hirebridge` command line in this process, with its own config directory under `home`. */
async function cli(home: string, urls: Record<string, string>, argv: string[], stdin = "") {
  let out = "";
  let err = "";
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  stdout.on("data", (d: Buffer) => (out += d.toString()));
  stderr.on("data", (d: Buffer) => (err += d.toString()));
  const input = new PassThrough();
  input.end(stdin);
  const code = await runCli(argv, { stdin: input, stdout, stderr, env: { HOME: home, XDG_CONFIG_HOME: join(home, "config"), ...urls } });
  return { code, stdout: out, stderr: err };
}

const claimsOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split(".")[1]!, "base64url").toString("utf8")) as Record<string, unknown>;

for (const kind of DB_KINDS) {
  describe(`service accounts [${kind}]`, () => {
    let sandbox: TestSandbox;
    let database: Awaited<ReturnType<typeof freshDatabase>>;
    let stack: RunningStack;
    let config: ReturnType<typeof testConfig>;
    let api: string;
    let proxy: string;
    let realmUrl: string;
    let person: string;
    let org: string;
    let logs = "";

    before(async () => {
      [sandbox, database] = await Promise.all([startSandbox(), freshDatabase(kind)]);
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
      // Every line any service logs, at debug, to look for secrets in.
      const sink = new Writable({
        write(chunk: Buffer, _enc, done) {
          logs += chunk.toString("utf8");
          done();
        },
      });
      stack = await startStack(config, ["token", "api", "proxy"], pino({ level: "debug" }, sink), { database });
      api = `http://127.0.0.1:${config.API_PORT}/api/v1`;
      proxy = `http://127.0.0.1:${config.PROXY_PORT}/api/v1`;
      realmUrl = `http://127.0.0.1:${config.AUTH_PORT}/realms/${config.AUTH_REALM}`;
      org = config.DEMO_ORG_ID;
      const login = await tokenRequest(realmUrl, {
        grant_type: "password",
        client_id: config.AUTH_CLIENT_ID,
        username: "demo",
        password: config.DEMO_PASSWORD,
      });
      person = (login.body as { access_token: string }).access_token;
    });
    after(async () => {
      await stack?.close();
      await sandbox?.close();
      await database?.dispose();
    });

    const create = async (body: Record<string, unknown>) => {
      const res = await call<ServiceAccountCreated>(`${api}/org/${org}/service-accounts`, { method: "POST", token: person, body });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body;
    };
    const clientToken = (clientId: string, secret: string) =>
      tokenRequest(realmUrl, { grant_type: "client_credentials", client_id: clientId, client_secret: secret });
    const tokenOf = async (account: ServiceAccountCreated) => {
      const res = await clientToken(account.client_id, account.client_secret);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return (res.body as { access_token: string }).access_token;
    };
    const integration = () => `${proxy}/integrations/${encodeURIComponent(sandbox.demoIntegrationId)}`;

    test("a client credentials token calls the recruiting API and the proxy; sub is the account, no refresh token", async () => {
      const account = await create({ name: "interview runner" });
      assert.match(account.client_id, /^sa-[a-z0-9]{20}$/);
      assert.deepEqual(account.scopes, []);
      const res = await clientToken(account.client_id, account.client_secret);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const body = res.body as Record<string, unknown>;
      assert.equal(body["refresh_token"], undefined);
      assert.equal(body["refresh_expires_in"], 0);
      assert.equal(body["token_type"], "Bearer");
      const claims = claimsOf(body["access_token"] as string);
      assert.equal(claims["sub"], account.id);
      assert.equal(claims["org_id"], org);
      assert.deepEqual(claims["aud"], [config.AUTH_AUDIENCE]);
      assert.equal(claims["azp"], account.client_id);
      const token = body["access_token"] as string;
      assert.deepEqual(await call(`${api}/org_id`, { token }), { status: 200, body: { org_id: org } });
      const created = await call<{ id: string }>(`${api}/org/${org}/position`, { method: "POST", token, body: { name: "Robot" } });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      assert.equal((await call(integration(), { token })).status, 200);
      // HTTP Basic client authentication works the same.
      const basic = await fetch(`${realmUrl}/protocol/openid-connect/token`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          authorization: `Basic ${Buffer.from(`${account.client_id}:${encodeURIComponent(account.client_secret)}`).toString("base64")}`,
        },
        body: "grant_type=client_credentials",
      });
      assert.equal(basic.status, 200);
      const listed = await call<ServiceAccountList>(`${api}/org/${org}/service-accounts`, { token: person });
      const mine = listed.body.items.find((a) => a.id === account.id)!;
      assert.ok(mine.last_used_at, "last used is recorded");
    });

    test("a read-only account may read but is refused a write (403); a recruiting-only one is refused by the proxy", async () => {
      const reader = await tokenOf(await create({ name: "reporting", scopes: ["read"] }));
      assert.equal((await call(`${api}/org/${org}/position`, { token: reader })).status, 200);
      const write = await call<{ detail: string }>(`${api}/org/${org}/position`, { method: "POST", token: reader, body: { name: "X" } });
      assert.equal(write.status, 403);
      assert.match(write.body.detail, /only read/);
      assert.equal((await call(integration(), { token: reader })).status, 200);

      const recruiter = await tokenOf(await create({ name: "backend", scopes: ["recruiting"] }));
      assert.equal((await call(`${api}/org/${org}/position`, { token: recruiter })).status, 200);
      const refused = await call<{ detail: string }>(integration(), { token: recruiter });
      assert.equal(refused.status, 403);
      assert.match(refused.body.detail, /recruiting API/);
    });

    test("it cannot reach another organisation, nor manage service accounts", async () => {
      const token = await tokenOf(await create({ name: "runner" }));
      assert.equal((await call(`${api}/org/${randomUUID()}/position`, { token })).status, 403);
      const managed = await call(`${api}/org/${org}/service-accounts`, { method: "POST", token, body: { name: "child" } });
      assert.equal(managed.status, 403);
      assert.equal((await call(`${api}/org/${org}/service-accounts`, { token })).status, 403);
      const other = await call(`${api}/org/${randomUUID()}/service-accounts`, { token: person });
      assert.equal(other.status, 403);
    });

    test("rotating invalidates the old secret at once", async () => {
      const account = await create({ name: "rotating" });
      const rotated = await call<ServiceAccountCreated>(`${api}/org/${org}/service-accounts/${account.id}/rotate-secret`, {
        method: "POST",
        token: person,
      });
      assert.equal(rotated.status, 200);
      assert.notEqual(rotated.body.client_secret, account.client_secret);
      assert.ok(rotated.body.secret_rotated_at);
      assert.deepEqual(await clientToken(account.client_id, account.client_secret), {
        status: 401,
        body: { error: "invalid_client", error_description: "Invalid client or Invalid client credentials" },
      });
      assert.equal((await clientToken(account.client_id, rotated.body.client_secret)).status, 200);
    });

    test("after revocation the next token request fails; the live token works until it expires", async () => {
      const account = await create({ name: "revoked" });
      const live = await tokenOf(account);
      const revoked = await call<ServiceAccount>(`${api}/org/${org}/service-accounts/${account.id}/revoke`, {
        method: "POST",
        token: person,
      });
      assert.equal(revoked.status, 200);
      assert.ok(revoked.body.revoked_at);
      assert.deepEqual(await clientToken(account.client_id, account.client_secret), {
        status: 401,
        body: { error: "unauthorized_client", error_description: "Client disabled" },
      });
      assert.equal((await call(`${api}/org_id`, { token: live })).status, 200);
      const again = await call(`${api}/org/${org}/service-accounts/${account.id}/revoke`, { method: "POST", token: person });
      assert.equal(again.status, 409);
      const unknown = await call(`${api}/org/${org}/service-accounts/${randomUUID()}/revoke`, { method: "POST", token: person });
      assert.equal(unknown.status, 404);
      assert.equal((await clientToken("sa-unknown", "x")).status, 401);
      const publicClient = await clientToken(config.AUTH_CLIENT_ID, "x");
      assert.equal(publicClient.status, 401);
      assert.equal((publicClient.body as { error: string }).error, "unauthorized_client");
    });

    test("the SDK's client-credentials mode obtains and renews its token on its own", async () => {
      const account = await create({ name: "sdk" });
      let now = Date.now();
      let tokenRequests = 0;
      const hb = new Hirebridge({
        authUrl: realmUrl,
        apiUrl: api,
        clientId: account.client_id,
        clientSecret: account.client_secret,
        clock: { now: () => now, sleep: (ms) => new Promise((r) => setTimeout(r, ms)) },
        fetch: (input, init) => {
          if (String(input).endsWith("/token")) tokenRequests++;
          return fetch(input, init);
        },
      });
      assert.equal(await hb.orgId(), org);
      await hb.positions.list();
      assert.equal(tokenRequests, 1);
      now += (config.ACCESS_TOKEN_LIFESPAN + 1) * 1000; // the SDK's clock: past the token's expiry
      await hb.positions.list();
      assert.equal(tokenRequests, 2, "a new token was obtained with the client credentials");
    });

    test("the CLI: a person creates, lists and revokes; a machine logs in with --client-secret-stdin", async () => {
      const urls = { HIREBRIDGE_AUTH_URL: realmUrl, HIREBRIDGE_API_URL: api, HIREBRIDGE_PROXY_URL: proxy };
      const [personHome, machineHome] = await Promise.all([1, 2].map(() => mkdtemp(join(tmpdir(), "hb-sa-"))));
      try {
        const run = (home: string, argv: string[], stdin?: string) => cli(home!, urls, argv, stdin);
        assert.equal((await run(personHome!, ["login", "-u", "demo", "--password-stdin"], config.DEMO_PASSWORD)).code, 0);
        const created = await run(personHome!, ["--json", "service-accounts", "create", "--name", "cli bot", "--scopes", "read"]);
        assert.equal(created.code, 0, created.stderr);
        const account = JSON.parse(created.stdout) as ServiceAccountCreated;
        assert.deepEqual(account.scopes, ["read"]);
        const login = await run(
          machineHome!,
          ["login", "--client-id", account.client_id, "--client-secret-stdin"],
          `${account.client_secret}\n`,
        );
        assert.equal(login.code, 0, login.stderr);
        assert.match(login.stdout, /service account/);
        const positions = await run(machineHome!, ["--json", "positions", "list"]);
        assert.equal(positions.code, 0, positions.stderr);
        assert.notEqual((await run(machineHome!, ["service-accounts", "list"])).code, 0, "a machine cannot manage service accounts");
        const listed = await run(personHome!, ["service-accounts", "list"]);
        assert.equal(listed.code, 0, listed.stderr);
        assert.ok(listed.stdout.includes(account.client_id) && !listed.stdout.includes(account.client_secret));
        assert.equal((await run(personHome!, ["service-accounts", "revoke", account.id, "--yes"])).code, 0);
        const usage = await run(machineHome!, ["login", "--client-secret-stdin"], "x");
        assert.equal(usage.code, 2);
      } finally {
        await Promise.all([personHome, machineHome].map((h) => rm(h!, { recursive: true, force: true })));
      }
    });

    test("the secret never appears in logs or list answers", async () => {
      const account = await create({ name: "quiet" });
      await tokenOf(account);
      await clientToken(account.client_id, "wrong");
      const listed = await call(`${api}/org/${org}/service-accounts`, { token: person });
      assert.ok(!JSON.stringify(listed.body).includes(account.client_secret));
      assert.ok(!JSON.stringify(listed.body).includes("secret_hash"));
      assert.ok(logs.includes(account.id), "the logs were captured");
      assert.ok(!logs.includes(account.client_secret));
    });
  });
}
