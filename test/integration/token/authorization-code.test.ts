import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { after, before, test } from "node:test";
import { AuthenticationError, Hirebridge } from "../../../src/client/index.js";
import { describeEachDatabase } from "../../helpers/db.js";
import { buildHarness, claims, type Harness, type NewUser } from "./harness.js";

const CLIENT = "hirebridge-console";

const pkce = () => {
  const verifier = randomBytes(48).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
};

describeEachDatabase("token service: authorization code + PKCE (the browser sign-in)", (getDb) => {
  let h: Harness;
  let redirectUri: string;
  before(async () => {
    h = await buildHarness(getDb(), { overrides: { BRUTE_FORCE_MAX_FAILURES: 3, BRUTE_FORCE_LOCKOUT_SECONDS: 60, CONSOLE_PORT: 16077 } });
    redirectUri = `http://127.0.0.1:16077/auth/callback`;
  });
  after(() => h.app.close());

  const base = () => `/realms/${h.config.AUTH_REALM}`;
  const authorize = (params: Record<string, string>) =>
    h.app.inject({ method: "GET", url: `${base()}/protocol/openid-connect/auth?${new URLSearchParams(params)}` });
  const authParams = (challenge: string, extra: Record<string, string> = {}) => ({
    client_id: CLIENT,
    redirect_uri: redirectUri,
    response_type: "code",
    scope: "openid",
    state: "st-1",
    nonce: "n-1",
    code_challenge: challenge,
    code_challenge_method: "S256",
    ...extra,
  });

  /** The login page's form: action, hidden fields, and the browser cookie. */
  async function openLogin(challenge: string) {
    const res = await authorize(authParams(challenge));
    assert.equal(res.statusCode, 200, res.body);
    const action = /<form[^>]*action="([^"]+)"/.exec(res.body)![1]!;
    const authRequest = /name="auth_request" value="([^"]+)"/.exec(res.body)![1]!;
    const cookie = String(res.headers["set-cookie"]).split(";")[0]!;
    return { res, action, authRequest, cookie };
  }

  async function submit(login: { action: string; authRequest: string; cookie: string }, username: string, password: string) {
    return h.app.inject({
      method: "POST",
      url: new URL(login.action).pathname,
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: login.cookie },
      payload: new URLSearchParams({ username, password, auth_request: login.authRequest }).toString(),
    });
  }

  /** Signs `user` in through the page; the code and the redirect's parameters. */
  async function signIn(user: NewUser, challenge: string) {
    const res = await submit(await openLogin(challenge), user.username, user.password);
    assert.equal(res.statusCode, 302, res.body);
    const location = new URL(String(res.headers["location"]));
    assert.equal(`${location.origin}${location.pathname}`, redirectUri);
    return { code: location.searchParams.get("code")!, location };
  }

  const exchange = (code: string, verifier: string | undefined, extra: Record<string, string> = {}) =>
    h.token({
      grant_type: "authorization_code",
      client_id: CLIENT,
      code,
      redirect_uri: redirectUri,
      ...(verifier === undefined ? {} : { code_verifier: verifier }),
      ...extra,
    });

  test("discovery advertises the endpoint, the grant and S256", async () => {
    const res = await h.app.inject({ method: "GET", url: `${base()}/.well-known/openid-configuration` });
    const doc = res.json() as Record<string, unknown>;
    assert.equal(doc["authorization_endpoint"], `${h.context.realms.app.issuer}/protocol/openid-connect/auth`);
    assert.ok((doc["grant_types_supported"] as string[]).includes("authorization_code"));
    assert.deepEqual(doc["code_challenge_methods_supported"], ["S256"]);
    assert.ok((doc["response_types_supported"] as string[]).includes("code"));
  });

  test("the login page: an HTML form with username and password, a strict CSP, no script", async () => {
    const { challenge } = pkce();
    const { res, action, cookie } = await openLogin(challenge);
    assert.match(String(res.headers["content-type"]), /^text\/html/);
    assert.match(res.body, /<input id="username" name="username"/);
    assert.match(res.body, /<input id="password" name="password" type="password"/);
    assert.match(res.body, /<label for="username">/);
    assert.doesNotMatch(res.body, /<script/i);
    assert.equal(action, `${h.context.realms.app.issuer}/login-actions/authenticate`);
    const csp = String(res.headers["content-security-policy"]);
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /style-src 'sha256-[A-Za-z0-9+/=]+'/);
    assert.match(csp, /form-action 'self' http:\/\/127\.0\.0\.1:16077/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(csp, /unsafe/);
    assert.match(cookie, /^HIREBRIDGE_AUTH_SESSION=.+/);
    assert.match(String(res.headers["set-cookie"]), /HttpOnly; SameSite=Lax/);
  });

  test("code → tokens: a session whose refresh token rotates like the password grant's, the nonce in the ID token", async () => {
    const user = await h.newUser();
    const { verifier, challenge } = pkce();
    const { code, location } = await signIn(user, challenge);
    assert.equal(location.searchParams.get("state"), "st-1");
    assert.equal(location.searchParams.get("iss"), h.context.realms.app.issuer);
    const res = await exchange(code, verifier);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const access = claims(res.body.access_token);
    assert.equal(access.sub, user.id);
    assert.equal(access["azp"], CLIENT);
    assert.deepEqual(access.aud, ["hirebridge", "account"], "the console's tokens name the APIs' audience");
    assert.equal(access["org_id"], user.orgId);
    assert.equal(claims(res.body.id_token)["nonce"], "n-1");

    const rotated = await h.refresh(res.body.refresh_token, CLIENT);
    assert.equal(rotated.status, 200);
    assert.notEqual(rotated.body.refresh_token, res.body.refresh_token);
    const replay = await h.refresh(res.body.refresh_token, CLIENT);
    assert.deepEqual(
      [replay.status, replay.body],
      [400, { error: "invalid_grant", error_description: "Maximum allowed refresh token reuse exceeded" }],
    );
    const after = await h.refresh(rotated.body.refresh_token, CLIENT);
    assert.equal(after.body.error_description, "Session doesn't have required client", "reuse ended the session");
  });

  test("PKCE is required and checked: no verifier, a malformed one, a wrong one; each burns the code", async () => {
    const user = await h.newUser();
    const cases: [string | undefined, string][] = [
      [undefined, "PKCE code verifier not specified"],
      ["short", "PKCE verification failed: Invalid code verifier"],
      [pkce().verifier, "PKCE verification failed: Code mismatch"],
    ];
    for (const [verifier, description] of cases) {
      const { verifier: right, challenge } = pkce();
      const { code } = await signIn(user, challenge);
      const res = await exchange(code, verifier);
      assert.deepEqual([res.status, res.body], [400, { error: "invalid_grant", error_description: description }]);
      const retry = await exchange(code, right);
      assert.deepEqual(retry.body, { error: "invalid_grant", error_description: "Code not valid" });
    }
  });

  test("the authorization request must carry an S256 challenge: refused back to the client in Keycloak's words", async () => {
    const cases: [Record<string, string>, string][] = [
      [{ code_challenge_method: "" }, "Missing parameter: code_challenge_method"],
      [{ code_challenge_method: "plain" }, "Invalid parameter: code challenge method is not matching the configured one"],
      [{ code_challenge: "" }, "Missing parameter: code_challenge"],
      [{ code_challenge: "too-short" }, "Invalid parameter: code_challenge"],
    ];
    for (const [override, description] of cases) {
      const params = Object.fromEntries(Object.entries(authParams(pkce().challenge, override)).filter(([, v]) => v !== ""));
      const res = await authorize(params);
      assert.equal(res.statusCode, 302, description);
      const location = new URL(String(res.headers["location"]));
      assert.equal(`${location.origin}${location.pathname}`, redirectUri);
      assert.equal(location.searchParams.get("error"), "invalid_request");
      assert.equal(location.searchParams.get("error_description"), description);
      assert.equal(location.searchParams.get("state"), "st-1");
    }
    const noType = await authorize(Object.fromEntries(Object.entries(authParams(pkce().challenge)).filter(([k]) => k !== "response_type")));
    assert.equal(new URL(String(noType.headers["location"])).searchParams.get("error_description"), "Missing parameter: response_type");
    const token = await authorize(authParams(pkce().challenge, { response_type: "token" }));
    assert.equal(new URL(String(token.headers["location"])).searchParams.get("error"), "unsupported_response_type");
  });

  test("redirect URIs match exactly: a foreign or altered one gets an error page, never a redirect; the exchange must repeat it", async () => {
    for (const uri of [
      `${redirectUri}/`,
      `${redirectUri}?x=1`,
      "http://evil.example/auth/callback",
      "http://127.0.0.1:16077/auth/callbackx",
    ]) {
      const res = await authorize(authParams(pkce().challenge, { redirect_uri: uri }));
      assert.equal(res.statusCode, 400, uri);
      assert.equal(res.headers["location"], undefined);
      assert.match(res.body, /Invalid parameter: redirect_uri/);
    }
    const unknown = await authorize(authParams(pkce().challenge, { client_id: "nobody" }));
    assert.equal(unknown.statusCode, 400);
    assert.match(unknown.body, /Client not found\./);
    // The SDK's client has no browser flow: no redirect URI is registered for it.
    const passwordClient = await authorize(authParams(pkce().challenge, { client_id: h.config.AUTH_CLIENT_ID }));
    assert.equal(passwordClient.statusCode, 400);

    const user = await h.newUser();
    const { verifier, challenge } = pkce();
    const { code } = await signIn(user, challenge);
    const res = await exchange(code, verifier, { redirect_uri: "http://127.0.0.1:16077/other" });
    assert.deepEqual([res.status, res.body], [400, { error: "invalid_grant", error_description: "Incorrect redirect_uri" }]);
  });

  test("codes are single use (a replay also ends the session the first exchange started) and live a minute", async () => {
    const user = await h.newUser();
    const { verifier, challenge } = pkce();
    const { code } = await signIn(user, challenge);
    const first = await exchange(code, verifier);
    assert.equal(first.status, 200);
    const second = await exchange(code, verifier);
    assert.deepEqual([second.status, second.body], [400, { error: "invalid_grant", error_description: "Code not valid" }]);
    const refresh = await h.refresh(first.body.refresh_token, CLIENT);
    assert.deepEqual([refresh.status, refresh.body.error_description], [400, "Session not active"]);

    const late = pkce();
    const { code: lateCode } = await signIn(user, late.challenge);
    h.clock.advance(61);
    const expired = await exchange(lateCode, late.verifier);
    assert.deepEqual([expired.status, expired.body], [400, { error: "invalid_grant", error_description: "Code not valid" }]);

    const missing = await exchange("", late.verifier);
    assert.deepEqual([missing.status, missing.body], [400, { error: "invalid_request", error_description: "Missing parameter: code" }]);
    const otherClient = await signIn(user, late.challenge);
    const wrongClient = await h.token({
      grant_type: "authorization_code",
      client_id: h.config.AUTH_CLIENT_ID,
      code: otherClient.code,
      redirect_uri: redirectUri,
      code_verifier: late.verifier,
    });
    assert.deepEqual(
      [wrongClient.status, wrongClient.body],
      [400, { error: "unauthorized_client", error_description: "Client not allowed to exchange code" }],
    );
    const consolePassword = await h.token({ grant_type: "password", client_id: CLIENT, username: user.username, password: user.password });
    assert.deepEqual(consolePassword.body, {
      error: "unauthorized_client",
      error_description: "Client not allowed for direct access grants",
    });
  });

  test("the page shares the password grant's brute-force protection and users", async () => {
    const user = await h.newUser();
    const { challenge } = pkce();
    const login = await openLogin(challenge);
    for (let i = 0; i < 3; i++) {
      const res = await submit(login, user.username, "wrong");
      assert.equal(res.statusCode, 200);
      assert.match(res.body, /role="alert"[^>]*>Invalid username or password\./);
      assert.match(res.body, new RegExp(`value="${user.username}"`), "the username is kept");
    }
    // Locked by the page's failures: the password grant refuses the right password too...
    const grant = await h.password(user.username, user.password);
    assert.deepEqual([grant.status, grant.body.error_description], [401, "Invalid user credentials"]);
    // ...and the page does as well, in the same words as a wrong password.
    const locked = await submit(login, user.username, user.password);
    assert.equal(locked.statusCode, 200);
    assert.match(locked.body, /Invalid username or password\./);
    h.clock.advance(61);
    assert.equal((await submit(login, user.username, user.password)).statusCode, 302);

    // And failures of the password grant lock the page.
    const other = await h.newUser();
    for (let i = 0; i < 3; i++) await h.password(other.username, "wrong");
    assert.equal((await submit(await openLogin(challenge), other.username, other.password)).statusCode, 200);
  });

  test("the form is bound to the browser that opened it, and to an untampered request", async () => {
    const user = await h.newUser();
    const login = await openLogin(pkce().challenge);
    const noCookie = await submit({ ...login, cookie: "" }, user.username, user.password);
    assert.equal(noCookie.statusCode, 400);
    assert.match(noCookie.body, /Cookie not found/);
    const tampered = await submit({ ...login, authRequest: `${login.authRequest.slice(0, -4)}AAAA` }, user.username, user.password);
    assert.equal(tampered.statusCode, 400);
    assert.match(tampered.body, /timed out/);
  });

  test("the SDK completes the sign-in (signInWithCode), then refreshes and logs out like any session", async () => {
    const user = await h.newUser();
    const { verifier, challenge } = pkce();
    const { code } = await signIn(user, challenge);
    await h.app.listen({ host: "127.0.0.1", port: 0 });
    const address = h.app.server.address() as { port: number };
    const hb = new Hirebridge({
      authUrl: `http://127.0.0.1:${address.port}/realms/${h.config.AUTH_REALM}`,
      clientId: CLIENT,
      refreshLeewaySeconds: 0,
    });
    const session = await hb.auth.signInWithCode({ code, redirectUri, codeVerifier: verifier });
    assert.equal(claims(session.accessToken)["azp"], CLIENT);
    assert.equal(hb.auth.current?.refreshToken, session.refreshToken);
    hb.auth.invalidate(session.accessToken);
    const renewed = await hb.auth.getAccessToken();
    assert.notEqual(renewed, session.accessToken, "a refresh with the rotated token");
    const replayed = await h.refresh(session.refreshToken, CLIENT);
    assert.equal(replayed.status, 400, "the first refresh token was rotated away");
    // That replay ended the session (reuse detection), so the SDK's next refresh is refused and it signs out.
    hb.auth.invalidate(renewed);
    await assert.rejects(hb.auth.getAccessToken(), AuthenticationError);
    assert.equal(hb.auth.current, null);

    const again = pkce();
    const second = await signIn(user, again.challenge);
    const hb2 = new Hirebridge({ authUrl: `http://127.0.0.1:${address.port}/realms/${h.config.AUTH_REALM}`, clientId: CLIENT });
    const s2 = await hb2.auth.signInWithCode({ code: second.code, redirectUri, codeVerifier: again.verifier });
    await hb2.auth.logout();
    const afterLogout = await h.refresh(s2.refreshToken, CLIENT);
    assert.deepEqual([afterLogout.status, afterLogout.body.error_description], [400, "Session not active"]);
    await assert.rejects(
      hb2.auth.signInWithCode({ code: second.code, redirectUri, codeVerifier: again.verifier }),
      (err: unknown) => err instanceof AuthenticationError && err.oauthError === "invalid_grant",
    );
  });
});
