import { createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from "jose";

/** Who is calling, as the APIs need it; taken from a verified access token. */
export type Principal = {
  sub: string;
  orgId: string | null;
  username: string | null;
  email: string | null;
  scope: string;
  claims: JWTPayload;
};

export type VerifierOptions = {
  issuer: string;
  /** JWKS URL; when absent it is read from the issuer's discovery document. */
  jwksUrl?: string | undefined;
  /** When set, `aud` must contain it or `azp` must equal it (Keycloak puts the client in `azp`). */
  audience?: string | undefined;
  clockToleranceSeconds?: number;
  /** Minimum time between two JWKS fetches triggered by an unknown `kid` (default `JWKS_COOLDOWN_MS`). */
  jwksCooldownMs?: number;
  /** Injected for tests (fixed JWKS, fake clock). */
  getKey?: JWTVerifyGetKey;
  currentDate?: () => Date;
  fetch?: typeof fetch;
};

export class TokenInvalidError extends Error {
  override name = "TokenInvalidError";
}

/**
 * After a JWKS fetch, a token naming an unknown `kid` triggers no new fetch for this long. It bounds
 * the load a flood of forged `kid`s can put on the issuer (one fetch per cooldown per instance), and
 * it is also how long a freshly rotated key may be refused by an instance that fetched the JWKS just
 * before the rotation; 5 s keeps that window short (Keycloak's own adapters use 10 s).
 */
export const JWKS_COOLDOWN_MS = 5_000;

/** Only asymmetric algorithms: `none` and HMAC (the public-key-as-secret attack) are refused. */
export const ALLOWED_ALGORITHMS = ["RS256", "ES256"];

/**
 * Verifies bearer JWTs against the issuer's JWKS. jose caches the key set, refetches it when a
 * token names an unknown `kid` (at most once per cooldown), and checks signature, `exp`, `nbf` and
 * `iss`; we add Keycloak's `typ: Bearer` claim check and the audience-or-azp rule.
 */
export function createVerifier(opts: VerifierOptions) {
  let getKey: JWTVerifyGetKey | undefined = opts.getKey;
  let discovering: Promise<JWTVerifyGetKey> | undefined;
  const fetchImpl = opts.fetch ?? fetch;

  async function keySet(): Promise<JWTVerifyGetKey> {
    if (getKey) return getKey;
    discovering ??= (async () => {
      let url = opts.jwksUrl;
      if (!url) {
        const res = await fetchImpl(`${opts.issuer.replace(/\/$/, "")}/.well-known/openid-configuration`, {
          signal: AbortSignal.timeout(5000),
        });
        if (!res.ok) throw new Error(`discovery answered ${res.status}`);
        const doc = (await res.json()) as { jwks_uri?: string };
        if (!doc.jwks_uri) throw new Error("discovery document has no jwks_uri");
        url = doc.jwks_uri;
      }
      getKey = createRemoteJWKSet(new URL(url), { cooldownDuration: opts.jwksCooldownMs ?? JWKS_COOLDOWN_MS, cacheMaxAge: 10 * 60_000, timeoutDuration: 5000 });
      return getKey;
    })().catch((err) => {
      discovering = undefined; // try again on the next request rather than failing forever
      throw err;
    });
    return discovering;
  }

  return async function verify(token: string): Promise<Principal> {
    let payload: JWTPayload;
    const keys = await keySet().catch((err) => {
      throw new VerifierUnavailableError("identity provider keys are unavailable", { cause: err });
    });
    try {
      ({ payload } = await jwtVerify(token, keys, {
        issuer: opts.issuer,
        algorithms: ALLOWED_ALGORITHMS,
        clockTolerance: opts.clockToleranceSeconds ?? 30,
        requiredClaims: ["exp", "sub"],
        ...(opts.currentDate ? { currentDate: opts.currentDate() } : {}),
      }));
    } catch (err) {
      if (err instanceof joseErrors.JWKSTimeout || (err instanceof Error && err.name === "TypeError")) {
        throw new VerifierUnavailableError("identity provider keys are unavailable", { cause: err });
      }
      throw new TokenInvalidError(describeJoseError(err));
    }
    if (payload["typ"] !== undefined && payload["typ"] !== "Bearer") throw new TokenInvalidError("token is not an access token");
    if (opts.audience) {
      const aud = Array.isArray(payload.aud) ? payload.aud : payload.aud ? [payload.aud] : [];
      if (!aud.includes(opts.audience) && payload["azp"] !== opts.audience) {
        throw new TokenInvalidError("token is not meant for this service");
      }
    }
    const str = (v: unknown) => (typeof v === "string" && v.length > 0 ? v : null);
    return {
      sub: payload.sub as string,
      orgId: str(payload["org_id"]),
      username: str(payload["preferred_username"]),
      email: str(payload["email"]),
      scope: typeof payload["scope"] === "string" ? payload["scope"] : "",
      claims: payload,
    };
  };
}
export type Verify = ReturnType<typeof createVerifier>;

/** The verifier every resource server builds from the configuration: the configured issuer's tokens. */
export function verifierFromConfig(
  config: { AUTH_JWKS_URL?: string | undefined; AUTH_AUDIENCE?: string | undefined; AUTH_CLOCK_SKEW_SECONDS: number },
  issuer: string,
): Verify {
  return createVerifier({
    issuer,
    jwksUrl: config.AUTH_JWKS_URL,
    audience: config.AUTH_AUDIENCE,
    clockToleranceSeconds: config.AUTH_CLOCK_SKEW_SECONDS,
  });
}

export class VerifierUnavailableError extends Error {
  override name = "VerifierUnavailableError";
}

function describeJoseError(err: unknown): string {
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
