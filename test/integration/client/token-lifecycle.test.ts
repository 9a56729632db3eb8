import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { AuthenticationError, Hirebridge, UnauthorizedError, type Session } from "../../../src/client/index.js";
import { decodeJwtPayload } from "../../../src/client/core/jwt.js";
import { recordingFetch, startAuthStack, type AuthStack } from "./harness.js";

const SECOND = 1000;
const ACCESS_LIFESPAN = 600; // seconds: long enough that the spec's 120 s leeway applies unchanged

/**
 * The spec's token lifecycle (Authentication 1-7) against the real token service and the real
 * recruiting API, with one controllable clock for all three. Token endpoint calls are counted
 * through the SDK's injected fetch.
 */
describe("SDK token lifecycle against the real token service", () => {
  let stack: AuthStack;
  before(async () => {
    stack = await startAuthStack({ accessLifespan: ACCESS_LIFESPAN, refreshLifespan: 1200 });
  });
  after(() => stack.close());

  async function client(opts: { withCredentials?: boolean; clockLag?: () => number } = {}) {
    const user = await stack.identity.login();
    const rec = recordingFetch();
    const sessions: (Session | null)[] = [];
    const lag = opts.clockLag ?? (() => 0);
    const hb = new Hirebridge({
      authUrl: stack.identity.authUrl,
      apiUrl: stack.apiUrl,
      fetch: rec.fetch,
      clock: { now: () => stack.time.now() - lag(), sleep: stack.time.clock.sleep },
      onSession: (s) => {
        sessions.push(s);
      },
      ...(opts.withCredentials === false
        ? { session: { accessToken: user.accessToken, refreshToken: user.refreshToken } }
        : { credentials: { username: user.username, password: user.password } }),
    });
    return { hb, rec, user, sessions };
  }

  const expOf = (token: string) => (decodeJwtPayload(token)?.exp as number) * SECOND;

  test("logs in with the password grant once and reuses the access token", async () => {
    const { hb, rec, user } = await client();
    assert.deepEqual(await hb.orgId(), user.orgId);
    const position = await hb.positions.create({ name: "Platform Engineer" });
    assert.equal((await hb.positions.get(position.id)).name, "Platform Engineer");
    assert.equal(rec.grants("password").length, 1);
    assert.equal(rec.grants("refresh_token").length, 0);
    assert.equal(rec.api().length, 3);
    const form = rec.grants("password")[0]!.form!;
    assert.deepEqual(Object.fromEntries(form), {
      grant_type: "password",
      username: user.username,
      password: user.password,
      client_id: "hirebridge",
    });
  });

  test("refreshes about 120 s before the exp claim, not earlier", async () => {
    const { hb, rec } = await client();
    await hb.orgId();
    const first = hb.auth.current!;
    const exp = expOf(first.accessToken);
    assert.equal(first.accessExpiresAt, exp, "the expiry instant is the JWT's exp claim");

    stack.time.advance(exp - 121 * SECOND - stack.time.now());
    await hb.positions.list();
    assert.equal(rec.grants("refresh_token").length, 0, "121 s before exp the token is still used");

    stack.time.advance(2 * SECOND); // now 119 s before exp
    await hb.positions.list();
    const refreshes = rec.grants("refresh_token");
    assert.equal(refreshes.length, 1);
    assert.equal(refreshes[0]!.form!.get("refresh_token"), first.refreshToken);
    assert.notEqual(hb.auth.current!.accessToken, first.accessToken);
    assert.ok(expOf(hb.auth.current!.accessToken) > exp);
    assert.equal(rec.grants("password").length, 1);
  });

  test("always refreshes with the newest refresh token (rotation) and reports every new session", async () => {
    const { hb, rec, sessions } = await client();
    await hb.orgId();
    const used: string[] = [];
    const issued = [hb.auth.current!.refreshToken];
    for (let i = 0; i < 3; i++) {
      stack.time.advance((ACCESS_LIFESPAN - 100) * SECOND);
      await hb.positions.list();
      issued.push(hb.auth.current!.refreshToken);
    }
    for (const call of rec.grants("refresh_token")) used.push(call.form!.get("refresh_token")!);
    assert.equal(used.length, 3);
    assert.deepEqual(used, issued.slice(0, 3), "each refresh used the token the previous answer carried");
    assert.equal(new Set(issued).size, 4, "every refresh answer carried a new refresh token");
    assert.deepEqual(
      sessions.map((s) => s?.refreshToken),
      issued,
      "onSession saw the login and each rotation, in order",
    );
  });

  test("50 concurrent calls across expiry cause exactly one refresh", async () => {
    const { hb, rec } = await client();
    const position = await hb.positions.create({ name: "Concurrency" });
    stack.time.advance((ACCESS_LIFESPAN + 5) * SECOND); // past exp: every call needs a new token
    const results = await Promise.all(Array.from({ length: 50 }, () => hb.positions.get(position.id)));
    assert.equal(results.length, 50);
    assert.ok(results.every((p) => p.id === position.id));
    assert.equal(rec.grants("refresh_token").length, 1);
    assert.equal(rec.grants("password").length, 1);
    assert.equal(rec.api().filter((c) => c.status === 401).length, 0);
  });

  test("after a 401 the SDK refreshes and retries the request once", async () => {
    let lag = 0;
    const { hb, rec } = await client({ clockLag: () => lag });
    await hb.orgId();
    // The server's clock jumps past the access token's exp while the client's stays behind, so the
    // client still believes its token is good: only the API's 401 can tell it otherwise.
    lag = (ACCESS_LIFESPAN + 60) * SECOND;
    stack.time.advance(lag);
    const list = await hb.positions.list();
    assert.deepEqual(list, { items: [] });
    assert.deepEqual(
      rec.api().map((c) => c.status),
      [200, 401, 200],
    );
    assert.equal(rec.grants("refresh_token").length, 1);
  });

  test("50 concurrent calls that all meet a 401 share one refresh and each retry once", async () => {
    let lag = 0;
    const { hb, rec } = await client({ clockLag: () => lag });
    const position = await hb.positions.create({ name: "401 storm" });
    lag = (ACCESS_LIFESPAN + 60) * SECOND;
    stack.time.advance(lag);
    const before = rec.api().length;
    const results = await Promise.all(Array.from({ length: 50 }, () => hb.positions.get(position.id)));
    assert.ok(results.every((p) => p.name === "401 storm"));
    assert.equal(rec.grants("refresh_token").length, 1);
    const statuses = rec
      .api()
      .slice(before)
      .map((c) => c.status);
    assert.equal(statuses.length, 100);
    assert.equal(statuses.filter((s) => s === 401).length, 50);
    assert.equal(statuses.filter((s) => s === 200).length, 50);
  });

  test("re-logs in with the credentials after invalid_grant (the session was ended)", async () => {
    const { hb, rec, user } = await client();
    await hb.orgId();
    await endSessions(user.userId);
    stack.time.advance((ACCESS_LIFESPAN - 60) * SECOND);
    await hb.positions.list();
    assert.equal(rec.grants("refresh_token").length, 1);
    assert.equal(rec.grants("refresh_token")[0]!.status, 400);
    assert.equal(rec.grants("password").length, 2);
  });

  test("logs in again without trying a refresh token it knows has expired", async () => {
    const { hb, rec } = await client();
    await hb.orgId();
    stack.time.advance(1300 * SECOND); // beyond the 1200 s refresh lifetime
    await hb.positions.list();
    assert.equal(rec.grants("refresh_token").length, 0);
    assert.equal(rec.grants("password").length, 2);
  });

  test("without credentials an ended session is a typed AuthenticationError that names no secret", async () => {
    const { hb, rec, user, sessions } = await client({ withCredentials: false });
    await hb.orgId();
    await endSessions(user.userId);
    stack.time.advance((ACCESS_LIFESPAN - 60) * SECOND);
    const err = await hb.positions.list().then(
      () => assert.fail("expected an AuthenticationError"),
      (e: unknown) => e,
    );
    assert.ok(err instanceof AuthenticationError);
    assert.equal(err.reason, "session_expired");
    assert.equal(err.oauthError, "invalid_grant");
    assert.equal(rec.grants("password").length, 0);
    assert.deepEqual(sessions.at(-1), null, "the dead session is forgotten");
    for (const secret of [user.refreshToken, user.accessToken, user.password]) assert.ok(!String(err.message).includes(secret));
  });

  test("a wrong password and a missing login are typed errors", async () => {
    const user = await stack.identity.login();
    const wrong = new Hirebridge({
      authUrl: stack.identity.authUrl,
      apiUrl: stack.apiUrl,
      clock: stack.time.clock,
      credentials: { username: user.username, password: "not-the-password" },
    });
    await assert.rejects(wrong.positions.list(), (e: unknown) => {
      assert.ok(e instanceof AuthenticationError);
      assert.equal(e.reason, "invalid_credentials");
      assert.equal(e.oauthError, "invalid_grant");
      assert.ok(!e.message.includes("not-the-password"));
      return true;
    });
    const anonymous = new Hirebridge({ authUrl: stack.identity.authUrl, apiUrl: stack.apiUrl });
    await assert.rejects(anonymous.positions.list(), (e: unknown) => e instanceof AuthenticationError && e.reason === "no_credentials");
  });

  test("a second 401 after the retry is final: UnauthorizedError, no third attempt", async () => {
    // An API that trusts another audience rejects every token this identity issues.
    const strictApiUrl = await stack.startApi({ audience: "some-other-service" });
    const user = await stack.identity.login();
    const rec = recordingFetch();
    const hb = new Hirebridge({
      authUrl: stack.identity.authUrl,
      apiUrl: strictApiUrl,
      fetch: rec.fetch,
      clock: stack.time.clock,
      credentials: { username: user.username, password: user.password },
    });
    await assert.rejects(hb.orgId(), (e: unknown) => e instanceof UnauthorizedError && e.status === 401);
    assert.deepEqual(
      rec.api().map((c) => c.status),
      [401, 401],
    );
    assert.equal(rec.grants("refresh_token").length, 1);
  });

  test("logout ends the session at the identity provider", async () => {
    const { hb, rec } = await client({ withCredentials: false });
    await hb.orgId();
    const refreshToken = hb.auth.current!.refreshToken;
    await hb.logout();
    assert.equal(hb.auth.current, null);
    const res = await fetch(`${stack.identity.authUrl}/protocol/openid-connect/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "refresh_token", client_id: "hirebridge", refresh_token: refreshToken }),
    });
    assert.equal(res.status, 400);
    assert.equal(((await res.json()) as { error: string }).error, "invalid_grant");
    assert.equal(rec.calls.filter((c) => c.url.pathname.endsWith("/logout")).length, 1);
  });

  /** Ends every session of the user through the admin API, as an administrator would. */
  async function endSessions(userId: string): Promise<void> {
    const origin = new URL(stack.identity.authUrl).origin;
    const adminLogin = await fetch(`${origin}/realms/master/protocol/openid-connect/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "password", client_id: "admin-cli", username: "admin", password: "admin-password" }),
    });
    const { access_token } = (await adminLogin.json()) as { access_token: string };
    const res = await fetch(`${origin}/admin/realms/hirebridge/users/${userId}/logout`, {
      method: "POST",
      headers: { authorization: `Bearer ${access_token}` },
    });
    assert.equal(res.status, 204);
  }
});
