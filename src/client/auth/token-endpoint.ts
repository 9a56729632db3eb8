import { AuthenticationError, type HirebridgeError } from "../core/errors.js";
import { claimMillis, decodeJwtPayload } from "../core/jwt.js";
import { exchange, type FetchLike } from "../core/transport.js";

/** What the token endpoint answers (the spec's Token response; Keycloak adds a few fields). */
export type TokenResponse = {
  access_token: string;
  expires_in: number;
  refresh_token: string;
  refresh_expires_in: number;
  token_type: string;
  "not-before-policy"?: number;
  session_state?: string;
  scope?: string;
};

/** A session as the client keeps it: both tokens and their expiry instants in local milliseconds. */
export type Session = {
  accessToken: string;
  refreshToken: string;
  /** When the access token stops working (local clock, ms). */
  accessExpiresAt: number;
  /** When the refresh token stops working (local clock, ms); null when the server set no limit. */
  refreshExpiresAt: number | null;
  /** When the tokens were requested (local clock, ms). */
  issuedAt: number;
};

export type Credentials = { username: string; password: string };

export type TokenEndpoint = {
  tokenUrl: string;
  logoutUrl: string;
  clientId: string;
  /** A service account's secret (confidential client): then tokens come from the client credentials grant. */
  clientSecret?: string | undefined;
  fetch: FetchLike;
  timeoutMs: number;
};

/** An RFC 6749 §5.2 error answer of the token endpoint. */
export class OAuthError extends Error {
  override name = "OAuthError";
  constructor(
    readonly status: number,
    readonly error: string,
    readonly description: string | null,
  ) {
    super(description ? `${error}: ${description}` : error);
  }
}

// Tokens issued during our request have `iat` at or after the moment we sent it. A larger gap means
// the clocks disagree; exp is then moved into local time so a client whose clock is minutes off
// neither sends dead tokens nor refreshes on every call.
const CLOCK_SKEW_TOLERANCE_MS = 5_000;

export function endpointsFor(authUrl: string): { tokenUrl: string; logoutUrl: string } {
  return {
    tokenUrl: `${authUrl}/protocol/openid-connect/token`,
    logoutUrl: `${authUrl}/protocol/openid-connect/logout`,
  };
}

/** POSTs a grant and returns the session it yields. `sentAt` is the local time before sending. */
export async function requestGrant(endpoint: TokenEndpoint, form: Record<string, string>, sentAt: number): Promise<Session> {
  const res = await exchange(
    endpoint.fetch,
    {
      method: "POST",
      url: endpoint.tokenUrl,
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: new URLSearchParams({
        ...form,
        client_id: endpoint.clientId,
        ...(endpoint.clientSecret ? { client_secret: endpoint.clientSecret } : {}),
      }).toString(),
    },
    { timeoutMs: endpoint.timeoutMs },
  );
  const body = res.body as Record<string, unknown> | null;
  if (res.status >= 400 && res.status < 500 && body && typeof body["error"] === "string") {
    throw new OAuthError(res.status, body["error"], typeof body["error_description"] === "string" ? body["error_description"] : null);
  }
  if (res.status !== 200) {
    throw new AuthenticationError("token_endpoint_error", `The token endpoint answered ${res.status}`);
  }
  return toSession(body, sentAt);
}

/** Ends the session at the identity provider (Keycloak's back-channel logout with the refresh token). */
export async function revokeSession(endpoint: TokenEndpoint, refreshToken: string): Promise<void> {
  const res = await exchange(
    endpoint.fetch,
    {
      method: "POST",
      url: endpoint.logoutUrl,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ client_id: endpoint.clientId, refresh_token: refreshToken }).toString(),
    },
    { timeoutMs: endpoint.timeoutMs },
  );
  // 400 invalid_grant means the session had already ended: the goal is reached either way.
  if (res.status >= 300 && res.status !== 400) {
    throw new AuthenticationError("token_endpoint_error", `The logout endpoint answered ${res.status}`);
  }
}

function toSession(body: Record<string, unknown> | null, sentAt: number): Session {
  const accessToken = body?.["access_token"];
  // A client credentials answer has no refresh token (Keycloak's default): the session then ends
  // with its access token, and the client credentials obtain the next one.
  const clientCredentials = body?.["refresh_token"] === undefined && body?.["refresh_expires_in"] === 0;
  const refreshToken = clientCredentials ? "" : body?.["refresh_token"];
  if (typeof accessToken !== "string" || typeof refreshToken !== "string" || !accessToken || (!refreshToken && !clientCredentials)) {
    throw new AuthenticationError("token_endpoint_error", "The token endpoint's answer has no access and refresh token");
  }
  const accessExpiresAt = expiryOf(accessToken, body?.["expires_in"], sentAt);
  if (accessExpiresAt === null) {
    throw new AuthenticationError("token_endpoint_error", "The token endpoint's answer does not say when the token expires");
  }
  // refresh_expires_in 0 is Keycloak's "no limit" (offline sessions); without a refresh token, spent already.
  const refreshExpiresAt = clientCredentials
    ? sentAt
    : body?.["refresh_expires_in"] === 0
      ? null
      : expiryOf(refreshToken, body?.["refresh_expires_in"], sentAt);
  return { accessToken, refreshToken, accessExpiresAt, refreshExpiresAt, issuedAt: sentAt };
}

/**
 * The token's `exp` claim in local time; `expires_in` only when the token is not a JWT with `exp`.
 * `sentAt` (when we asked for the token) enables the clock-skew correction; tokens obtained
 * elsewhere have no such moment and are taken at their word.
 */
function expiryOf(token: string, expiresIn: unknown, sentAt: number | null): number | null {
  const claims = decodeJwtPayload(token);
  const exp = claimMillis(claims, "exp");
  if (exp !== null) {
    const iat = claimMillis(claims, "iat");
    const offset = sentAt !== null && iat !== null && Math.abs(iat - sentAt) > CLOCK_SKEW_TOLERANCE_MS ? iat - sentAt : 0;
    return exp - offset;
  }
  if (sentAt === null) return null;
  return typeof expiresIn === "number" && Number.isFinite(expiresIn) && expiresIn > 0 ? sentAt + expiresIn * 1000 : null;
}

/** Tokens obtained elsewhere (a saved session, another client): the missing expiry data read from the JWTs. */
export type SessionInput = Pick<Session, "accessToken" | "refreshToken"> & Partial<Omit<Session, "accessToken" | "refreshToken">>;

export function completeSession(input: SessionInput, now: number): Session {
  const iat = claimMillis(decodeJwtPayload(input.accessToken), "iat");
  return {
    accessToken: input.accessToken,
    refreshToken: input.refreshToken,
    // Unknown expiry: treat the access token as spent, so the first call refreshes.
    accessExpiresAt: input.accessExpiresAt ?? expiryOf(input.accessToken, undefined, null) ?? now,
    refreshExpiresAt: input.refreshExpiresAt !== undefined ? input.refreshExpiresAt : expiryOf(input.refreshToken, undefined, null),
    issuedAt: input.issuedAt ?? iat ?? now,
  };
}

/** Maps an OAuth error of the password grant to the SDK's error. */
export function loginFailure(err: OAuthError): HirebridgeError {
  if (err.error === "invalid_client" || err.error === "unauthorized_client") {
    return new AuthenticationError("client_rejected", `The identity provider refused the client (${err.message})`, err.error);
  }
  if (err.error === "invalid_grant") {
    return new AuthenticationError("invalid_credentials", `Login failed (${err.message})`, err.error);
  }
  return new AuthenticationError("token_endpoint_error", `Login failed (${err.message})`, err.error);
}
