import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { endpointsFor, type Session } from "../../../src/client/auth/token-endpoint.js";
import { TokenManager, type TokenManagerOptions } from "../../../src/client/auth/token-manager.js";
import { AbortedError, AuthenticationError, ConnectionError } from "../../../src/client/core/errors.js";
import { json, jwt, manualClock, scriptedFetch } from "./fakes.js";

const AUTH = "https://id.example.test/realms/hirebridge";
const S = 1000;

/** A token response the way Keycloak shapes it, with `iat`/`exp` in the server's seconds. */
function tokens(serverNowMs: number, lifetime = 1800, n = 1) {
  const iat = Math.floor(serverNowMs / S);
  return json(200, {
    access_token: jwt({ iat, exp: iat + lifetime, n, typ: "Bearer" }),
    expires_in: lifetime,
    refresh_token: jwt({ iat, exp: iat + 1800, n, typ: "Refresh" }),
    refresh_expires_in: 1800,
    token_type: "Bearer",
    "not-before-policy": 0,
    session_state: "s",
    scope: "profile email",
  });
}

function manager(script: Parameters<typeof scriptedFetch>[0], extra: Partial<TokenManagerOptions> = {}) {
  const fake = scriptedFetch(script);
  const clock = manualClock();
  const tm = new TokenManager({
    endpoint: { ...endpointsFor(AUTH), clientId: "hirebridge", fetch: fake.fetch, timeoutMs: 1000 },
    clock,
    credentials: { username: "ada", password: "s3cret-pw" },
    ...extra,
  });
  return { tm, seen: fake.seen, clock };
}

describe("TokenManager", () => {
  test("a client clock 10 minutes behind the server still refreshes 120 s before the real expiry", async () => {
    const clock = manualClock();
    const skew = 10 * 60 * S;
    const fake = scriptedFetch([() => tokens(clock.now() + skew, 1800, 1), () => tokens(clock.now() + skew, 1800, 2)]);
    const tm = new TokenManager({
      endpoint: { ...endpointsFor(AUTH), clientId: "hirebridge", fetch: fake.fetch, timeoutMs: 1000 },
      clock,
      credentials: { username: "ada", password: "pw" },
    });
    const first = await tm.getAccessToken();
    // exp (server time) is moved into local time: 1800 s after the local moment of the request.
    assert.equal(tm.current!.accessExpiresAt, clock.now() + 1800 * S);
    clock.advance((1800 - 121) * S);
    assert.equal(await tm.getAccessToken(), first);
    clock.advance(2 * S);
    assert.notEqual(await tm.getAccessToken(), first);
    assert.equal(fake.seen.length, 2);
  });

  test("short-lived tokens are refreshed at half-life, not on every call", async () => {
    const { tm, seen, clock } = manager([() => tokens(clock.now(), 60, 1), () => tokens(clock.now(), 60, 2)]);
    const first = await tm.getAccessToken();
    clock.advance(29 * S);
    assert.equal(await tm.getAccessToken(), first);
    clock.advance(2 * S);
    assert.notEqual(await tm.getAccessToken(), first);
    assert.equal(seen.length, 2);
  });

  test("a token endpoint failure keeps the session: the next call refreshes with the same token", async () => {
    const { tm, seen, clock } = manager([
      () => tokens(clock.now()),
      new TypeError("fetch failed"),
      json(503, { error: "temporarily_unavailable" }),
      () => tokens(clock.now(), 1800, 2),
    ]);
    await tm.getAccessToken();
    const refreshToken = tm.current!.refreshToken;
    clock.advance(1700 * S);
    await assert.rejects(tm.getAccessToken(), ConnectionError);
    await assert.rejects(tm.getAccessToken(), (e: unknown) => e instanceof AuthenticationError && e.reason === "token_endpoint_error");
    await tm.getAccessToken();
    const used = seen.slice(1).map((s) => new URLSearchParams(s.body).get("refresh_token"));
    assert.deepEqual(used, [refreshToken, refreshToken, refreshToken]);
  });

  test("one caller aborting does not cancel the refresh the others wait for", async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const { tm, seen, clock } = manager([
      async () => {
        await gate;
        return tokens(clock.now());
      },
    ] as never);
    const controller = new AbortController();
    const impatient = tm.getAccessToken(controller.signal);
    const patient = tm.getAccessToken();
    controller.abort();
    await assert.rejects(impatient, AbortedError);
    release();
    assert.match(await patient, /\./);
    assert.equal(seen.length, 1);
  });

  test("a session set while a refresh is in flight wins over the refresh's result", async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const { tm, clock } = manager([
      async () => {
        await gate;
        return tokens(clock.now(), 1800, 99);
      },
    ] as never);
    const pending = tm.getAccessToken();
    const chosen = { accessToken: jwt({ exp: clock.now() / S + 900, iat: clock.now() / S }), refreshToken: "r-chosen" };
    await tm.setSession(chosen);
    release();
    assert.equal(await pending, chosen.accessToken);
    assert.equal(tm.current!.refreshToken, "r-chosen");
  });

  test("adopts a newer session another process saved instead of refreshing with a spent token", async () => {
    const clock = manualClock();
    const saved: Session = {
      accessToken: jwt({ exp: clock.now() / S + 1800 }),
      refreshToken: "rotated-by-someone-else",
      accessExpiresAt: clock.now() + 1800 * S,
      refreshExpiresAt: clock.now() + 1800 * S,
      issuedAt: clock.now(),
    };
    const fake = scriptedFetch([]);
    const tm = new TokenManager({
      endpoint: { ...endpointsFor(AUTH), clientId: "hirebridge", fetch: fake.fetch, timeoutMs: 1000 },
      clock,
      session: { accessToken: jwt({ exp: clock.now() / S - 1 }), refreshToken: "spent" },
      loadSession: async () => saved,
    });
    assert.equal(await tm.getAccessToken(), saved.accessToken);
    assert.equal(fake.seen.length, 0);
  });

  test("a lock, when given, covers the renewal and the saving of its result", async () => {
    const events: string[] = [];
    const { tm, clock } = manager([() => tokens(clock.now())], {
      lock: async (work) => {
        events.push("lock");
        try {
          return await work();
        } finally {
          events.push("unlock");
        }
      },
      onSession: () => {
        events.push("saved");
      },
    });
    await tm.getAccessToken();
    assert.deepEqual(events, ["lock", "saved", "unlock"]);
  });

  test("a refused client is AuthenticationError(client_rejected); a non-token answer is token_endpoint_error", async () => {
    const a = manager([json(401, { error: "unauthorized_client", error_description: "Client not allowed for direct access grants" })]);
    await assert.rejects(a.tm.getAccessToken(), (e: unknown) => e instanceof AuthenticationError && e.reason === "client_rejected");
    const b = manager([json(200, { hello: "world" })]);
    await assert.rejects(b.tm.getAccessToken(), (e: unknown) => e instanceof AuthenticationError && e.reason === "token_endpoint_error");
  });

  test("the password grant sends the credentials as a form, and errors never repeat them", async () => {
    const { tm, seen } = manager([json(401, { error: "invalid_grant", error_description: "Invalid user credentials" })]);
    const err = await tm.getAccessToken().catch((e: unknown) => e);
    assert.ok(err instanceof AuthenticationError);
    assert.equal(err.message, "Login failed (invalid_grant: Invalid user credentials)");
    assert.equal(seen[0]!.headers["content-type"], "application/x-www-form-urlencoded");
    assert.deepEqual(Object.fromEntries(new URLSearchParams(seen[0]!.body)), {
      grant_type: "password",
      username: "ada",
      password: "s3cret-pw",
      client_id: "hirebridge",
    });
  });

  test("a resumed session without expiry data reads it from the JWTs", async () => {
    const clock = manualClock();
    const access = jwt({ exp: clock.now() / S + 300, iat: clock.now() / S - 60 });
    const tm = new TokenManager({
      endpoint: { ...endpointsFor(AUTH), clientId: "hirebridge", fetch: scriptedFetch([]).fetch, timeoutMs: 1000 },
      clock,
      session: { accessToken: access, refreshToken: "opaque-refresh" },
    });
    assert.deepEqual(tm.current, {
      accessToken: access,
      refreshToken: "opaque-refresh",
      accessExpiresAt: clock.now() + 300 * S,
      refreshExpiresAt: null,
      issuedAt: clock.now() - 60 * S,
    });
    assert.equal(await tm.getAccessToken(), access);
  });
});
