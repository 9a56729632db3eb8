/**
 * Sign-in for a page, as OAuth 2.0 for browser apps says: authorization code with PKCE (S256) at
 * the token service, tokens in memory only (a reload signs in again), the SDK's token lifecycle
 * from then on (refresh ahead of expiry, one refresh at a time, one retry after a 401). Only the
 * PKCE verifier and the state survive the redirect, in sessionStorage, and are removed at once.
 */
import { Hirebridge } from "hirebridge/client";

export type Settings = { authUrl: string; clientId: string; redirectUri: string; apiUrl: string; proxyUrl: string };

const PENDING = "hirebridge-console-signin";
type Pending = { state: string; verifier: string; returnTo: string };

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

/** Leaves for the token service's login page; `returnTo` is where to come back to afterwards. */
export async function startSignIn(settings: Settings, returnTo: string): Promise<void> {
  const verifier = random(48);
  const challenge = b64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))));
  const state = random(24);
  sessionStorage.setItem(PENDING, JSON.stringify({ state, verifier, returnTo } satisfies Pending));
  const url = new URL(`${settings.authUrl}/protocol/openid-connect/auth`);
  url.search = new URLSearchParams({
    client_id: settings.clientId,
    redirect_uri: settings.redirectUri,
    response_type: "code",
    scope: "openid",
    state,
    code_challenge: challenge,
    code_challenge_method: "S256",
  }).toString();
  location.assign(url.toString());
}

/** On `/auth/callback`: checks the state, exchanges the code through the SDK; where to go next. */
export async function finishSignIn(settings: Settings, hb: Hirebridge, query: URLSearchParams): Promise<string> {
  const raw = sessionStorage.getItem(PENDING);
  sessionStorage.removeItem(PENDING);
  const pending = raw ? (JSON.parse(raw) as Pending) : null;
  const error = query.get("error");
  if (error) throw new Error(`The sign-in was refused: ${query.get("error_description") ?? error}`);
  const code = query.get("code");
  if (!pending || !code || query.get("state") !== pending.state) {
    throw new Error("This sign-in answer does not belong to a sign-in started here. Sign in again.");
  }
  await hb.auth.signInWithCode({ code, redirectUri: settings.redirectUri, codeVerifier: pending.verifier });
  return pending.returnTo.startsWith("/") && !pending.returnTo.startsWith("/auth/") ? pending.returnTo : "/";
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
