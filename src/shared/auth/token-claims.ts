import { errors as joseErrors, type CompactJWSHeaderParameters, type JWTPayload } from "jose";

/**
 * The claims of a verified token the APIs act on: what the token is (an access token, issued in
 * the past) and who it is for (the audience rule), then the principal they read.
 */

/** Who is calling, as the APIs need it; taken from a verified access token. */
export type Principal = {
  sub: string;
  orgId: string | null;
  username: string | null;
  email: string | null;
  scope: string;
  claims: JWTPayload;
};

export class TokenInvalidError extends Error {
  override name = "TokenInvalidError";
}

/**
 * Whether the token is meant for `audience`: named in `aud`, or the client it was issued to, which
 * Keycloak puts in `azp` and RFC 9068 access tokens in `client_id`.
 */
export function meantFor(payload: JWTPayload, audience: string): boolean {
  const aud = Array.isArray(payload.aud) ? payload.aud : payload.aud ? [payload.aud] : [];
  return aud.includes(audience) || payload["azp"] === audience || payload["client_id"] === audience;
}

/** RFC 9068's header types of an access token (`application/` may be left out, case does not matter). */
const ACCESS_TOKEN_HEADER_TYPES = new Set(["at+jwt", "application/at+jwt"]);
/** Header types that say nothing about what the token is for. */
const GENERIC_HEADER_TYPES = new Set(["jwt", "application/jwt"]);

/**
 * Whether the token is an access token, by its type: Keycloak's claim `typ: "Bearer"` (its ID
 * tokens say "ID", its refresh tokens "Refresh"), or RFC 9068's header `typ: at+jwt`. A token that
 * names another type is refused; one that names none only when `required` is off.
 */
function checkTokenType(payload: JWTPayload, header: CompactJWSHeaderParameters, required: boolean): void {
  const claim = payload["typ"];
  const headerType = typeof header.typ === "string" ? header.typ.toLowerCase() : undefined;
  if (claim !== undefined && claim !== "Bearer") throw new TokenInvalidError("token is not an access token");
  const atJwt = headerType !== undefined && ACCESS_TOKEN_HEADER_TYPES.has(headerType);
  if (headerType !== undefined && !atJwt && !GENERIC_HEADER_TYPES.has(headerType)) {
    throw new TokenInvalidError("token is not an access token");
  }
  if (required && claim !== "Bearer" && !atJwt) {
    throw new TokenInvalidError("token does not say it is an access token (typ)");
  }
}

/**
 * `iat` later than now plus the clock skew: a token from the future (a clock gone wrong at the
 * issuer, or a token minted to outlive its keys' rotation). jose checks only that it is a number.
 */
function checkIssuedAt(payload: JWTPayload, nowMs: number, skewSeconds: number): void {
  if (typeof payload.iat === "number" && payload.iat > nowMs / 1000 + skewSeconds) {
    throw new TokenInvalidError("token is issued in the future");
  }
}

/**
 * The principal of a token whose signature and registered claims jose has checked: refused unless
 * it is an access token (checkTokenType), issued no later than now plus the skew, and meant for
 * `audience` when one is required.
 */
export function accessTokenPrincipal(
  payload: JWTPayload,
  header: CompactJWSHeaderParameters,
  opts: { audience: string | undefined; requireTokenType: boolean; nowMs: number; skewSeconds: number },
): Principal {
  checkIssuedAt(payload, opts.nowMs, opts.skewSeconds);
  checkTokenType(payload, header, opts.requireTokenType);
  if (opts.audience && !meantFor(payload, opts.audience)) throw new TokenInvalidError("token is not meant for this service");
  const str = (v: unknown) => (typeof v === "string" && v.length > 0 ? v : null);
  return {
    sub: payload.sub as string,
    orgId: str(payload["org_id"]),
    username: str(payload["preferred_username"]),
    email: str(payload["email"]),
    scope: typeof payload["scope"] === "string" ? payload["scope"] : "",
    claims: payload,
  };
}

/** What a token jose refused is told: why, never the token. */
export function describeJoseError(err: unknown): string {
  if (err instanceof joseErrors.JWTExpired) return "token has expired";
  if (err instanceof joseErrors.JWTClaimValidationFailed) {
    if (err.claim === "nbf") return "token is not yet valid";
    if (err.claim === "iss") return "token was issued by an untrusted issuer";
    return `token claim ${err.claim} is invalid`;
  }
  if (err instanceof joseErrors.JOSEAlgNotAllowed) return "token algorithm is not allowed";
  if (err instanceof joseErrors.JWSSignatureVerificationFailed) return "token signature is invalid";
  if (err instanceof joseErrors.JWKSNoMatchingKey) return "token signing key is unknown";
  return "token is malformed or invalid";
}
