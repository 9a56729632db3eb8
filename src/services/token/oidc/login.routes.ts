import { createHash, randomBytes } from "node:crypto";
import { Type, type FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { Static } from "@sinclair/typebox";
import type { FastifyReply, FastifyRequest } from "fastify";
import { authenticate } from "../authenticate.js";
import { grantedScope } from "../grants/issue-tokens.js";
import { isS256Challenge } from "../grants/pkce.js";
import { requireRealm, type Client, type Realm } from "../realms.js";
import type { TokenContext } from "../token-context.js";
import { KeycloakError } from "../token-errors.js";
import { AUTH_SESSION_COOKIE, cookieOf, setCookie } from "./browser-cookies.js";
import { errorPage, loginPage, loginPageCsp } from "./login-page.js";
import { browserSso, startSso } from "./sso.js";
import { RealmParamsSchema } from "./token.routes.js";

/** Keycloak's defaults: a code lives a minute, a login form half an hour. */
const CODE_LIFESPAN_SECONDS = 60;
const LOGIN_LIFESPAN_SECONDS = 30 * 60;

const AuthQuerySchema = Type.Object(
  {
    client_id: Type.Optional(Type.String()),
    redirect_uri: Type.Optional(Type.String()),
    response_type: Type.Optional(Type.String()),
    scope: Type.Optional(Type.String()),
    state: Type.Optional(Type.String({ maxLength: 2000 })),
    nonce: Type.Optional(Type.String({ maxLength: 2000 })),
    prompt: Type.Optional(Type.String({ maxLength: 200 })),
    code_challenge: Type.Optional(Type.String()),
    code_challenge_method: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);

const LoginFormSchema = Type.Object(
  { username: Type.Optional(Type.String()), password: Type.Optional(Type.String()), auth_request: Type.Optional(Type.String()) },
  { additionalProperties: true },
);

/** What the login form carries (signed) from the authorization request to the sign-in. */
type AuthRequest = {
  client_id: string;
  redirect_uri: string;
  scope: string;
  state?: string | undefined;
  nonce?: string | undefined;
  code_challenge: string;
  browser: string;
};

const hash = (v: string) => createHash("sha256").update(v).digest("base64url");
const originOf = (uri: string) => new URL(uri).origin;

function html(reply: FastifyReply, status: number, body: string, redirectOrigin?: string): FastifyReply {
  return reply
    .status(status)
    .header("content-security-policy", loginPageCsp(redirectOrigin))
    .header("cache-control", "no-store")
    .header("x-frame-options", "DENY")
    .type("text/html; charset=utf-8")
    .send(body);
}

/** Back to the client with the answer in the query (RFC 6749 §4.1.2), `iss` included (RFC 9207). */
function redirectBack(reply: FastifyReply, realm: Realm, redirectUri: string, params: Record<string, string | undefined>): FastifyReply {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  url.searchParams.set("iss", realm.issuer);
  return reply.status(302).header("cache-control", "no-store").header("location", url.toString()).send();
}

/**
 * The parsed `prompt` (OpenID Connect Core §3.1.2.1): `none` never shows a page, `login` always
 * shows the login page (even with an SSO session); `none` with anything else is an invalid request.
 * Other values (consent, select_account) ask for nothing this realm has: the request goes on as without.
 */
function promptOf(value: string | undefined): "none" | "login" | "auto" | "invalid" {
  const values = (value ?? "").split(" ").filter(Boolean);
  if (values.includes("none")) return values.length === 1 ? "none" : "invalid";
  return values.includes("login") ? "login" : "auto";
}

/** Issues a single-use code for a signed-in browser and sends it back to the client. */
async function sendCode(
  ctx: TokenContext,
  reply: FastifyReply,
  realm: Realm,
  auth: Omit<AuthRequest, "browser">,
  signedIn: { userId: string; sso: { id: string; startedAt: Date } },
): Promise<FastifyReply> {
  const code = randomBytes(32).toString("base64url");
  await ctx.codes.insert(code, {
    realm: realm.name,
    clientId: auth.client_id,
    userId: signedIn.userId,
    redirectUri: auth.redirect_uri,
    codeChallenge: auth.code_challenge,
    scope: auth.scope,
    nonce: auth.nonce ?? null,
    // When the person last typed their password: the SSO session's start.
    authTime: signedIn.sso.startedAt,
    expiresAt: new Date(ctx.now() + CODE_LIFESPAN_SECONDS * 1000),
    ssoSessionId: signedIn.sso.id,
  });
  return redirectBack(reply, realm, auth.redirect_uri, { code, state: auth.state });
}

/** The login page for an authorization request, bound to this browser by a fresh auth-session cookie. */
async function showLoginPage(
  ctx: TokenContext,
  request: FastifyRequest,
  reply: FastifyReply,
  realm: Realm,
  auth: Omit<AuthRequest, "browser">,
): Promise<FastifyReply> {
  const browser = randomBytes(32).toString("base64url");
  const signed = await signAuthRequest(ctx, realm, { ...auth, browser: hash(browser) });
  setCookie(reply, request, realm, AUTH_SESSION_COOKIE, browser, LOGIN_LIFESPAN_SECONDS);
  return html(
    reply,
    200,
    loginPage({ realm: realm.name, action: `${realm.issuer}/login-actions/authenticate`, authRequest: signed }),
    originOf(auth.redirect_uri),
  );
}

type AuthQuery = Static<typeof AuthQuerySchema>;

/**
 * `GET …/auth` (Keycloak's AuthorizationEndpoint): checks the request; then a browser with a live
 * SSO session gets its code at once (unless `prompt=login`), `prompt=none` without one goes back
 * with `login_required` (no description, as Keycloak sends it), and anyone else gets the login page.
 */
async function authorizationEndpoint(ctx: TokenContext, request: FastifyRequest, reply: FastifyReply, realmName: string, q: AuthQuery) {
  const realm = requireRealm(ctx.realms, realmName);
  const client = q.client_id ? realm.clients.get(q.client_id) : undefined;
  if (!client) return html(reply, 400, errorPage("Client not found."));
  const redirectUri = q.redirect_uri;
  if (!redirectUri || !client.standardFlow?.redirectUris.includes(redirectUri)) {
    return html(reply, 400, errorPage("Invalid parameter: redirect_uri"));
  }
  const fail = (error: string, description?: string) =>
    redirectBack(reply, realm, redirectUri, { error, error_description: description, state: q.state });
  const problem = checkAuthRequest(client, q);
  if (problem) return fail(problem[0], problem[1]);
  let scope: string;
  try {
    scope = grantedScope(q.scope);
  } catch {
    return fail("invalid_scope", `Invalid scopes: ${q.scope ?? ""}`);
  }
  const prompt = promptOf(q.prompt);
  if (prompt === "invalid") return fail("invalid_request", "Invalid parameter: prompt");
  const auth = {
    client_id: client.clientId,
    redirect_uri: redirectUri,
    scope,
    state: q.state,
    nonce: q.nonce,
    code_challenge: q.code_challenge!,
  };
  if (prompt !== "login") {
    const signedIn = await browserSso(ctx, request, reply, realm);
    if (signedIn) return sendCode(ctx, reply, realm, auth, { userId: signedIn.user.id, sso: signedIn.sso });
    if (prompt === "none") return fail("login_required");
  }
  return showLoginPage(ctx, request, reply, realm, auth);
}

type LoginForm = Static<typeof LoginFormSchema>;

/**
 * `POST …/login-actions/authenticate`, the login form's target: signs the person in through the
 * same brute-force protection and users as the password grant, starts the browser's SSO session
 * and redirects back with a single-use code.
 */
async function loginFormTarget(ctx: TokenContext, request: FastifyRequest, reply: FastifyReply, realmName: string, form: LoginForm) {
  const realm = requireRealm(ctx.realms, realmName);
  const auth = form.auth_request ? await readAuthRequest(ctx, realm, form.auth_request) : null;
  if (!auth) return html(reply, 400, errorPage("Your login attempt timed out. Start the sign-in again from the application."));
  const browser = cookieOf(request, AUTH_SESSION_COOKIE);
  if (!browser || hash(browser) !== auth.browser) {
    return html(reply, 400, errorPage("Cookie not found. Please make sure cookies are enabled in your browser."));
  }
  const again = (error: string) =>
    html(
      reply,
      200,
      loginPage({
        realm: realm.name,
        action: `${realm.issuer}/login-actions/authenticate`,
        authRequest: form.auth_request!,
        username: form.username ?? "",
        error,
      }),
      originOf(auth.redirect_uri),
    );
  if (!form.username || !form.password) return again("Invalid username or password.");
  let user;
  try {
    user = await authenticate(ctx, realm, form.username, form.password);
  } catch (err) {
    if (!(err instanceof KeycloakError)) throw err;
    // Keycloak's login page words: locked, unknown and wrong password all read the same.
    if (err.statusCode === 401) return again("Invalid username or password.");
    return again(
      err.body["error_description"] === "Account disabled"
        ? "Account is disabled, contact your administrator."
        : "Account is not fully set up. Contact your administrator.",
    );
  }
  setCookie(reply, request, realm, AUTH_SESSION_COOKIE, null);
  const sso = await startSso(ctx, request, reply, realm, user.id);
  return sendCode(ctx, reply, realm, auth, { userId: user.id, sso });
}

/**
 * The browser sign-in's first half: `GET …/protocol/openid-connect/auth` checks the request and
 * signs the browser in from its SSO session or shows the login form; the form posts to
 * `…/login-actions/authenticate`. A request that cannot name a trusted redirect (unknown client,
 * redirect URI not registered) gets an error page; every other problem goes back to the client as
 * `error` and `error_description`, as Keycloak does.
 */
export function loginRoutes(ctx: TokenContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      "/protocol/openid-connect/auth",
      {
        schema: {
          summary:
            "Authorization endpoint (authorization code with PKCE S256): the login page, or a code at once for a browser signed in (prompt=none never shows a page)",
          params: RealmParamsSchema,
          querystring: AuthQuerySchema,
        },
      },
      (request, reply) => authorizationEndpoint(ctx, request, reply, request.params.realm, request.query),
    );

    app.post(
      "/login-actions/authenticate",
      {
        schema: {
          summary: "The login form's target",
          consumes: ["application/x-www-form-urlencoded"],
          params: RealmParamsSchema,
          body: LoginFormSchema,
        },
      },
      (request, reply) => loginFormTarget(ctx, request, reply, request.params.realm, request.body),
    );
  };
}

/** Keycloak's checks of an authorization request whose client and redirect URI are trusted, in its order and words. */
function checkAuthRequest(client: Client, q: Record<string, string | undefined>): [string, string] | null {
  if (!q["response_type"]) return ["invalid_request", "Missing parameter: response_type"];
  if (q["response_type"] !== "code") {
    return [
      "unsupported_response_type",
      "Client is not allowed to initiate browser login with given response_type. Only 'code' is supported.",
    ];
  }
  if (!client.standardFlow)
    return [
      "unauthorized_client",
      "Client is not allowed to initiate browser login with given response_type. Standard flow is disabled for the client.",
    ];
  if (!q["code_challenge_method"]) return ["invalid_request", "Missing parameter: code_challenge_method"];
  if (q["code_challenge_method"] !== "S256")
    return ["invalid_request", "Invalid parameter: code challenge method is not matching the configured one"];
  if (!q["code_challenge"]) return ["invalid_request", "Missing parameter: code_challenge"];
  if (!isS256Challenge(q["code_challenge"])) return ["invalid_request", "Invalid parameter: code_challenge"];
  return null;
}

async function signAuthRequest(ctx: TokenContext, realm: Realm, req: AuthRequest): Promise<string> {
  const now = Math.floor(ctx.now() / 1000);
  return ctx.keys.sign({ iss: realm.issuer, aud: realm.issuer, typ: "AuthRequest", iat: now, exp: now + LOGIN_LIFESPAN_SECONDS, req });
}

async function readAuthRequest(ctx: TokenContext, realm: Realm, token: string): Promise<AuthRequest | null> {
  try {
    const payload = await ctx.keys.verify(token, realm.issuer);
    if (payload["typ"] !== "AuthRequest") return null;
    const req = payload["req"] as AuthRequest | undefined;
    if (!req || typeof req.redirect_uri !== "string" || typeof req.code_challenge !== "string") return null;
    // The client and its redirect URI are checked again: the realm's registration may have changed.
    const client = realm.clients.get(req.client_id);
    return client?.standardFlow?.redirectUris.includes(req.redirect_uri) ? req : null;
  } catch {
    return null;
  }
}
