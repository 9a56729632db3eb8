import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { after, before, test } from "node:test";
import { describeEachDatabase } from "../../helpers/db.js";
import { buildHarness, claims, type Harness, type NewUser, type Res } from "./harness.js";

const CLIENT = "hirebridge-console";
const IDENTITY = "HIREBRIDGE_IDENTITY";

const pkce = () => {
  const verifier = randomBytes(48).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
};

const setCookies = (headers: Record<string, unknown>): string[] => [headers["set-cookie"] ?? []].flat().map(String);
const cookieValue = (headers: Record<string, unknown>, name: string) =>
  setCookies(headers)
    .find((c) => c.startsWith(`${name}=`))
    ?.split(";")[0]
    ?.slice(name.length + 1);

/**
 * The browser's SSO session (Keycloak's identity cookie and user session): a sign-in on the login
 * page sets an HttpOnly cookie; with it the authorization endpoint answers at once (a reload, a new
 * tab, `prompt=none`), and without it `prompt=none` answers `login_required`. It ends with a logout,
 * a password change, the user's disabling, an admin's logout, idleness and its maximum lifespan.
 */
describeEachDatabase("token service: the browser's SSO session and prompt=none", (getDb) => {
  let h: Harness;
  const redirectUri = "http://127.0.0.1:16078/auth/callback";
  before(async () => {
    h = await buildHarness(getDb(), {
      overrides: { CONSOLE_PORT: 16078, REFRESH_TOKEN_LIFESPAN: 600, SESSION_MAX_LIFESPAN: 3600, TRUST_PROXY: 1 },
    });
  });
  after(() => h.app.close());

  const base = () => `/realms/${h.config.AUTH_REALM}`;
  /** The authorization request a page sends (with `cookie`, as the browser would). */
  const authorize = (challenge: string, opts: { cookie?: string; prompt?: string; headers?: Record<string, string> } = {}) =>
    h.app.inject({
      method: "GET",
      url: `${base()}/protocol/openid-connect/auth?${new URLSearchParams({
        client_id: CLIENT,
        redirect_uri: redirectUri,
        response_type: "code",
        scope: "openid",
        state: "st-9",
        code_challenge: challenge,
        code_challenge_method: "S256",
        ...(opts.prompt ? { prompt: opts.prompt } : {}),
      })}`,
      headers: { ...(opts.cookie ? { cookie: `${IDENTITY}=${opts.cookie}` } : {}), ...opts.headers },
    });

  /** The login page, filled in and posted: the redirect with its code, and the SSO cookie it set. */
  async function signIn(user: NewUser, challenge: string, headers: Record<string, string> = {}) {
    const page = await authorize(challenge, { headers });
    assert.equal(page.statusCode, 200, page.body);
    const action = /<form[^>]*action="([^"]+)"/.exec(page.body)![1]!;
    const authRequest = /name="auth_request" value="([^"]+)"/.exec(page.body)![1]!;
    const res = await h.app.inject({
      method: "POST",
      url: new URL(action).pathname,
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        cookie: `HIREBRIDGE_AUTH_SESSION=${cookieValue(page.headers, "HIREBRIDGE_AUTH_SESSION")}`,
        ...headers,
      },
      payload: new URLSearchParams({ username: user.username, password: user.password, auth_request: authRequest }).toString(),
    });
    assert.equal(res.statusCode, 302, res.body);
    return { res, cookie: cookieValue(res.headers, IDENTITY)!, location: new URL(String(res.headers["location"])) };
  }

  const exchange = (location: URL, verifier: string): Promise<Res> =>
    h.token({
      grant_type: "authorization_code",
      client_id: CLIENT,
      code: location.searchParams.get("code")!,
      redirect_uri: redirectUri,
      code_verifier: verifier,
    });

  /** A silent sign-in with the cookie: the tokens it gets, or the error it was sent back with. */
  async function silent(cookie: string | undefined, prompt = "none") {
    const { verifier, challenge } = pkce();
    const res = await authorize(challenge, { ...(cookie ? { cookie } : {}), prompt });
    assert.equal(res.statusCode, 302, `${prompt}: a redirect, never a page: ${res.body}`);
    const location = new URL(String(res.headers["location"]));
    assert.equal(`${location.origin}${location.pathname}`, redirectUri);
    assert.equal(location.searchParams.get("state"), "st-9");
    assert.equal(location.searchParams.get("iss"), h.context.realms.app.issuer);
    if (location.searchParams.has("error")) return { error: location.searchParams.get("error"), res, location };
    const tokens = await exchange(location, verifier);
    assert.equal(tokens.status, 200, JSON.stringify(tokens.body));
    return { tokens: tokens.body, res, location };
  }

  test("a sign-in sets the SSO cookie: HttpOnly, SameSite=Lax, scoped to the realm, Secure only over HTTPS", async () => {
    const user = await h.newUser();
    const { res, cookie } = await signIn(user, pkce().challenge);
    const set = setCookies(res.headers).find((c) => c.startsWith(`${IDENTITY}=`))!;
    assert.match(cookie, /^[A-Za-z0-9_-]{43}$/, "a random secret, not a token");
    assert.equal(set, `${IDENTITY}=${cookie}; Path=${base()}/; HttpOnly; SameSite=Lax`);
    // Behind a TLS-terminating proxy (TRUST_PROXY) the request is HTTPS: the cookies are Secure.
    const https = await signIn(user, pkce().challenge, { "x-forwarded-proto": "https" });
    assert.match(setCookies(https.res.headers).find((c) => c.startsWith(`${IDENTITY}=`))!, /; HttpOnly; SameSite=Lax; Secure$/);
    assert.ok(
      setCookies(https.res.headers).some((c) => /^HIREBRIDGE_AUTH_SESSION=;.*Secure; Max-Age=0$/.test(c)),
      "the form's cookie is cleared",
    );
  });

  test("with the cookie, prompt=none (a reload, a new tab) signs in at once: a new session of the same sign-in", async () => {
    const user = await h.newUser();
    const { verifier, challenge } = pkce();
    const first = await signIn(user, challenge);
    const original = await exchange(first.location, verifier);
    assert.equal(original.status, 200);
    h.clock.advance(60);
    const again = await silent(first.cookie);
    assert.ok(again.tokens, `signed in: ${again.error}`);
    const access = claims(again.tokens.access_token);
    assert.equal(access.sub, user.id);
    assert.equal(access["azp"], CLIENT);
    assert.notEqual(access["sid"], claims(original.body.access_token)["sid"], "each tab has its own refresh-token family");
    assert.equal(
      claims(again.tokens.id_token)["auth_time"],
      claims(original.body.id_token)["auth_time"],
      "auth_time is when the password was typed",
    );
    // Without prompt the same: no login page while the SSO session lives.
    assert.ok((await silent(first.cookie, "")).tokens);
    // prompt=login shows the login page even so.
    const forced = await authorize(pkce().challenge, { cookie: first.cookie, prompt: "login" });
    assert.equal(forced.statusCode, 200);
    assert.match(forced.body, /id="kc-form-login"/);
  });

  test("without a live SSO session, prompt=none goes back with login_required; none with another value is refused", async () => {
    assert.equal((await silent(undefined)).error, "login_required");
    const stranger = await silent(randomBytes(32).toString("base64url"));
    assert.equal(stranger.error, "login_required");
    assert.equal(stranger.location.searchParams.get("error_description"), null, "as Keycloak: no description");
    assert.ok(
      setCookies(stranger.res.headers).some((c) => c.startsWith(`${IDENTITY}=;`) && c.endsWith("Max-Age=0")),
      "a dead cookie is cleared",
    );
    const mixed = await silent(undefined, "none login");
    assert.equal(mixed.error, "invalid_request");
    assert.equal(mixed.location.searchParams.get("error_description"), "Invalid parameter: prompt");
  });

  test("sign-out (logout of any session it started) ends the SSO session and the sessions of the other tabs", async () => {
    const user = await h.newUser();
    const { verifier, challenge } = pkce();
    const first = await signIn(user, challenge);
    const tabA = (await exchange(first.location, verifier)).body;
    const tabB = (await silent(first.cookie)).tokens;
    const logout = await h.app.inject({
      method: "POST",
      url: `${base()}/protocol/openid-connect/logout`,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams({ client_id: CLIENT, refresh_token: tabB.refresh_token }).toString(),
    });
    assert.equal(logout.statusCode, 204);
    assert.equal((await silent(first.cookie)).error, "login_required", "no silent sign-in after sign-out");
    const other = await h.refresh(tabA.refresh_token, CLIENT);
    assert.deepEqual([other.status, other.body.error_description], [400, "Session not active"], "the other tab's session ended too");
  });

  test("a password change, disabling the user and an admin's logout end the SSO session", async () => {
    const cases: [string, (user: NewUser) => Promise<Res>][] = [
      [
        "password reset",
        (u) => h.admin("PUT", `/users/${u.id}/reset-password`, { type: "password", value: "a-new-password-1", temporary: false }),
      ],
      ["disabled", (u) => h.admin("PUT", `/users/${u.id}`, { enabled: false })],
      ["admin logout", (u) => h.admin("POST", `/users/${u.id}/logout`)],
    ];
    for (const [what, end] of cases) {
      const user = await h.newUser();
      const { cookie } = await signIn(user, pkce().challenge);
      assert.ok((await silent(cookie)).tokens, `${what}: live before`);
      const res = await end(user);
      assert.equal(res.status, 204, `${what}: ${JSON.stringify(res.body)}`);
      assert.equal((await silent(cookie)).error, "login_required", `${what}: ended`);
    }
  });

  test("idle after REFRESH_TOKEN_LIFESPAN unless a session it started is refreshed; over after SESSION_MAX_LIFESPAN", async () => {
    const user = await h.newUser();
    const { verifier, challenge } = pkce();
    const first = await signIn(user, challenge);
    let tokens = (await exchange(first.location, verifier)).body;
    // The console refreshes its tokens: that use keeps the SSO session from going idle.
    for (let i = 0; i < 3; i++) {
      h.clock.advance(400);
      tokens = (await h.refresh(tokens.refresh_token, CLIENT)).body;
      assert.ok(tokens.access_token, `refresh ${i}`);
    }
    h.clock.advance(400);
    assert.ok((await silent(first.cookie)).tokens, "1600 s after the sign-in, kept alive by the refreshes");
    h.clock.advance(601);
    assert.equal((await silent(first.cookie)).error, "login_required", "idle: nothing used it for longer than the idle timeout");

    const other = await signIn(user, pkce().challenge);
    for (let i = 0; i < 7; i++) {
      h.clock.advance(500);
      assert.ok((await silent(other.cookie)).tokens, `use ${i}`);
    }
    h.clock.advance(200);
    assert.equal((await silent(other.cookie)).error, "login_required", "past SESSION_MAX_LIFESPAN however busy");
    h.clock.advance(2 * 86_400);
    await h.purgeExpired();
    const left = await getDb().query<{ id: string }>("select id from token_sso_sessions where user_id = $1", [user.id]);
    assert.deepEqual(left, [], "the purge removes dead SSO sessions");
  });

  test("discovery lists the prompt values", async () => {
    const res = await h.app.inject({ method: "GET", url: `${base()}/.well-known/openid-configuration` });
    assert.deepEqual((res.json() as { prompt_values_supported: string[] }).prompt_values_supported, ["none", "login"]);
  });
});
