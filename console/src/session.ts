/**
 * Sign-in for a page, as OAuth 2.0 for browser apps says: authorization code with PKCE (S256) at
 * the token service, tokens in memory only (never in localStorage), the SDK's token lifecycle
 * from then on (refresh ahead of expiry, one refresh at a time, one retry after a 401). A page load
 * without tokens (a reload, a new tab, a deep link) first signs in silently, as keycloak-js's
 * check-sso does: a redirect with `prompt=none` that comes back at once with a code while the token
 * service's SSO session (its HttpOnly cookie) lives, or with `login_required`, and then the page
 * offers Sign in. Only the PKCE verifier, the state and where to return survive the redirect, in
 * sessionStorage, and are removed at once.
 */
import { Hirebridge } from "hirebridge/client";

export type Settings = { authUrl: string; clientId: string; redirectUri: string; apiUrl: string; proxyUrl: string };

const PENDING = "hirebridge-console-signin";
type Pending = { state: string; verifier: string; returnTo: string; silent: boolean };

/** What a `prompt=none` sign-in answers when the person has to be asked (OpenID Connect Core §3.1.2.6): not a failure. */
const ASK_THE_PERSON = new Set(["login_required", "interaction_required", "consent_required", "account_selection_required"]);

const b64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
const random = (n: number) => b64url(crypto.getRandomValues(new Uint8Array(n)));

export async function loadSettings(): Promise<Settings> {
  const res = await fetch("/config.json", { headers: { accept: "application/json" } });
  if (!res.ok) throw new Error(`The console's settings could not be loaded (${res.status})`);
  return (await res.json()) as Settings;
}

export function createClient(settings: Settings, onSignedOut: () => void): Hirebridge {
  return new Hirebridge({
    authUrl: settings.authUrl,
    apiUrl: settings.apiUrl,
    proxyUrl: settings.proxyUrl,
    clientId: settings.clientId,
    // No credentials: when the session ends (expired, revoked), the person signs in again.
    onSession: (s) => {
      if (s === null) onSignedOut();
    },
  });
}

/**
 * Leaves for the token service: its login page, or (`silent`) a `prompt=none` request that never
 * shows one. `returnTo` is where to come back to afterwards.
 */
export async function startSignIn(settings: Settings, returnTo: string, silent = false): Promise<void> {
  const verifier = random(48);
  const challenge = b64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))));
  const state = random(24);
  sessionStorage.setItem(PENDING, JSON.stringify({ state, verifier, returnTo, silent } satisfies Pending));
  const url = new URL(`${settings.authUrl}/protocol/openid-connect/auth`);
  url.search = new URLSearchParams({
    client_id: settings.clientId,
    redirect_uri: settings.redirectUri,
    response_type: "code",
    scope: "openid",
    state,
    code_challenge: challenge,
    code_challenge_method: "S256",
    ...(silent ? { prompt: "none" } : {}),
  }).toString();
  location.assign(url.toString());
}

/**
 * A silent sign-in is worth trying when the token service answers: otherwise the redirect would
 * leave the person on the browser's error page instead of the console's Sign in.
 */
export async function tokenServiceAnswers(settings: Settings): Promise<boolean> {
  try {
    const res = await fetch(`${settings.authUrl}/.well-known/openid-configuration`, { signal: AbortSignal.timeout(3000) });
    return res.ok;
  } catch {
    return false;
  }
}

/**
 * On `/auth/callback`: checks the state, exchanges the code through the SDK. Answers where to go
 * next and whether someone is signed in now (a silent sign-in that found no SSO session is not).
 */
export async function finishSignIn(
  settings: Settings,
  hb: Hirebridge,
  query: URLSearchParams,
): Promise<{ returnTo: string; signedIn: boolean }> {
  const raw = sessionStorage.getItem(PENDING);
  sessionStorage.removeItem(PENDING);
  const pending = raw ? (JSON.parse(raw) as Pending) : null;
  // A path on this origin only (not `//host`), with its query and fragment (`?tab=` survives the sign-in).
  const back = pending?.returnTo ?? "";
  const returnTo = back.startsWith("/") && !back.startsWith("//") && !back.startsWith("/auth/") ? back : "/";
  if (!pending || query.get("state") !== pending.state) {
    throw new Error("This sign-in answer does not belong to a sign-in started here. Sign in again.");
  }
  const error = query.get("error");
  if (error && pending.silent && ASK_THE_PERSON.has(error)) return { returnTo, signedIn: false };
  if (error) throw new Error(`The sign-in was refused: ${query.get("error_description") ?? error}`);
  const code = query.get("code");
  if (!code) throw new Error("This sign-in answer carries no code. Sign in again.");
  await hb.auth.signInWithCode({ code, redirectUri: settings.redirectUri, codeVerifier: pending.verifier });
  return { returnTo, signedIn: true };
}

/** Who is signed in, from the access token's claims (display only; the APIs check the token). */
export function whoAmI(hb: Hirebridge): { name: string; email: string | null } | null {
  const token = hb.auth.current?.accessToken;
  if (!token) return null;
  try {
    const payload = JSON.parse(atob(token.split(".")[1]!.replace(/-/g, "+").replace(/_/g, "/"))) as Record<string, unknown>;
    return {
      name: String(payload["preferred_username"] ?? "signed in"),
      email: typeof payload["email"] === "string" ? payload["email"] : null,
    };
  } catch {
    return null;
  }
}
