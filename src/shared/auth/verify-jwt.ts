import {
  createRemoteJWKSet,
  customFetch,
  errors as joseErrors,
  jwtVerify,
  type FlattenedJWSInput,
  type CompactJWSHeaderParameters,
  type JWTVerifyGetKey,
} from "jose";
import { accessTokenPrincipal, describeJoseError, TokenInvalidError, type Principal } from "./token-claims.js";

export { meantFor, TokenInvalidError, type Principal } from "./token-claims.js";

export type VerifierOptions = {
  issuer: string;
  /** JWKS URL; when absent it is read from the issuer's discovery document. */
  jwksUrl?: string | undefined;
  /**
   * When set, `aud` must contain it, or `azp` (Keycloak's client) or `client_id` (RFC 9068's) must
   * equal it.
   */
  audience?: string | undefined;
  clockToleranceSeconds?: number;
  /** Whether a token must say it is an access token (default true; token-claims.ts, checkTokenType). */
  requireTokenType?: boolean;
  /** Minimum time between two JWKS fetches triggered by an unknown `kid` (default `JWKS_COOLDOWN_MS`). */
  jwksCooldownMs?: number;
  /** How long a fetched JWKS is used before it is fetched again (default `JWKS_MAX_AGE_MS`). */
  jwksMaxAgeMs?: number;
  /** Most verified tokens remembered at once (default `VERIFIED_CACHE_ENTRIES`); 0 turns the cache off. */
  cacheEntries?: number;
  /** Injected for tests (fixed JWKS, fake clock). */
  getKey?: JWTVerifyGetKey;
  currentDate?: () => Date;
  fetch?: typeof fetch;
};

/**
 * After a JWKS fetch, a token naming an unknown `kid` triggers no new fetch for this long. It bounds
 * the load a flood of forged `kid`s can put on the issuer (one fetch per cooldown per instance), and
 * it is also how long a freshly rotated key may be refused by an instance that fetched the JWKS just
 * before the rotation; 5 s keeps that window short (Keycloak's own adapters use 10 s).
 */
export const JWKS_COOLDOWN_MS = 5_000;

/** How long a fetched JWKS is trusted before the next verification fetches it again. */
export const JWKS_MAX_AGE_MS = 10 * 60_000;

/** Verified tokens remembered per verifier: a few MB at most (a principal and a header each). */
export const VERIFIED_CACHE_ENTRIES = 10_000;

/** Only asymmetric algorithms: `none` and HMAC (the public-key-as-secret attack) are refused. */
export const ALLOWED_ALGORITHMS = ["RS256", "ES256"];

type CacheEntry = { principal: Principal; header: CompactJWSHeaderParameters; key: unknown; until: number; generation: number };

/** What getKey is handed on a cache hit: the header is all a JWKS lookup reads. */
const NO_JWS = {} as FlattenedJWSInput;

/** The issuer's JWKS URL, from its discovery document. */
async function discoverJwksUrl(issuer: string, fetchImpl: typeof fetch): Promise<string> {
  const res = await fetchImpl(`${issuer.replace(/\/$/, "")}/.well-known/openid-configuration`, {
    signal: AbortSignal.timeout(5000),
  });
  if (!res.ok) throw new Error(`discovery answered ${res.status}`);
  const doc = (await res.json()) as { jwks_uri?: string };
  if (!doc.jwks_uri) throw new Error("discovery document has no jwks_uri");
  return doc.jwks_uri;
}

/**
 * The key set tokens are verified against: the injected one, or the issuer's remote JWKS, found
 * (through discovery when no URL is given) on first use and again after a failed attempt.
 */
type KeySource = {
  /** The key set once loaded (undefined before). */
  current(): JWTVerifyGetKey | undefined;
  load(): Promise<JWTVerifyGetKey>;
  /** Bumped by every fetch of the remote key set; -1 forever for an injected key set. */
  generation(): number;
  /** Whether the remote key set is within its max age (then a cached entry needs no key lookup). */
  fresh(): boolean;
  /** The generation of the key set in use, or -2 (matches nothing) while a fetch is under way. */
  settled(): number;
};

function keySource(opts: VerifierOptions): KeySource {
  let getKey: JWTVerifyGetKey | undefined = opts.getKey;
  let discovering: Promise<JWTVerifyGetKey> | undefined;
  const fetchImpl = opts.fetch ?? fetch;
  let generation = opts.getKey ? -1 : 0;
  let fresh = () => false;
  let settled = () => -2;

  async function open(): Promise<JWTVerifyGetKey> {
    const url = opts.jwksUrl ?? (await discoverJwksUrl(opts.issuer, fetchImpl));
    const remote = createRemoteJWKSet(new URL(url), {
      cooldownDuration: opts.jwksCooldownMs ?? JWKS_COOLDOWN_MS,
      cacheMaxAge: opts.jwksMaxAgeMs ?? JWKS_MAX_AGE_MS,
      timeoutDuration: 5000,
      // Every JWKS fetch starts a new generation (jose calls this as a reload starts, and swaps
      // its key set in before it stops `reloading`): entries verified under an older key set
      // are checked against the new one before they are honoured again.
      [customFetch]: (input: string | URL | Request, init?: RequestInit) => {
        generation++;
        return fetchImpl(input, init);
      },
    });
    fresh = () => remote.fresh;
    settled = () => (remote.reloading ? -2 : generation);
    getKey = remote;
    return remote;
  }

  return {
    current: () => getKey,
    load() {
      if (getKey) return Promise.resolve(getKey);
      discovering ??= open().catch((err) => {
        discovering = undefined; // try again on the next request rather than failing forever
        throw err;
      });
      return discovering;
    },
    generation: () => generation,
    fresh: () => fresh(),
    settled: () => settled(),
  };
}

/**
 * Tokens that passed every check, with the key that verified them (see createVerifier): honoured
 * until `until`, and only while that key is still the key set's key for the token's `kid`.
 */
function verifiedCache(maxEntries: number, nowMs: () => number, keys: KeySource) {
  const cache = new Map<string, CacheEntry>();
  let sweptAt = 0;
  return {
    size: () => cache.size,
    /**
     * The common case, without a single await: an entry in date, made under the remote key set in
     * use (no fetch since: same generation), which is within its max age. Its key is then the one
     * that verified it.
     */
    quick(token: string): Principal | undefined {
      const hit = cache.get(token);
      const generation = keys.generation();
      if (hit && hit.generation === generation && generation >= 0 && hit.until > nowMs() && keys.fresh()) return hit.principal;
      return undefined;
    },
    /** The cached principal when the entry is still in date and its key still the key set's; else drops it. */
    async lookUp(token: string, getKey: JWTVerifyGetKey): Promise<Principal | undefined> {
      const hit = cache.get(token);
      if (!hit) return undefined;
      if (hit.until > nowMs()) {
        let key: unknown;
        const before = keys.settled();
        try {
          key = await getKey(hit.header, NO_JWS);
        } catch {
          // the kid left the key set (or it cannot be fetched now): verify in full, which says why
        }
        if (key === hit.key && cache.get(token) === hit) {
          if (before === keys.settled()) hit.generation = before;
          return hit.principal;
        }
      }
      cache.delete(token);
      return undefined;
    },
    remember(token: string, entry: CacheEntry): void {
      const at = nowMs();
      if (entry.until <= at || maxEntries === 0) return;
      if (at - sweptAt > 60_000) {
        sweptAt = at;
        for (const [t, e] of cache) if (e.until <= at) cache.delete(t);
      }
      cache.set(token, entry);
      if (cache.size > maxEntries) cache.delete(cache.keys().next().value!);
    },
  };
}

/** The signature and registered claims, by jose; its errors as TokenInvalidError or VerifierUnavailableError. */
async function verifySignature(token: string, getKey: JWTVerifyGetKey, opts: VerifierOptions, skewSeconds: number) {
  try {
    return await jwtVerify(token, getKey, {
      issuer: opts.issuer,
      algorithms: ALLOWED_ALGORITHMS,
      clockTolerance: skewSeconds,
      requiredClaims: ["exp", "sub"],
      ...(opts.currentDate ? { currentDate: opts.currentDate() } : {}),
    });
  } catch (err) {
    if (err instanceof joseErrors.JWKSTimeout || (err instanceof Error && err.name === "TypeError")) {
      throw new VerifierUnavailableError("identity provider keys are unavailable", { cause: err });
    }
    throw new TokenInvalidError(describeJoseError(err));
  }
}

/**
 * Verifies bearer JWTs against the issuer's JWKS. jose caches the key set, refetches it when a
 * token names an unknown `kid` (at most once per cooldown) or when it is older than its max age,
 * and checks signature, `exp`, `nbf` and `iss`; we add `iat` (not later than now plus the skew),
 * the token's type (checkTokenType) and the audience rule (`aud`, `azp` or `client_id`).
 *
 * A client sends the same access token with every request until it refreshes it, and the signature
 * check (RSA or ECDSA through WebCrypto) is most of a protected request's cost. So a token that
 * passed every check is remembered, and its later uses only look the token up and ask the key set
 * for its `kid` again (a map lookup, which also refetches a JWKS past its max age):
 * - an entry is honoured until the token's `exp` minus the clock skew, never later, and is dropped
 *   then (swept at most once a minute, so expired tokens do not stay in memory);
 * - an entry is honoured only while the key that verified it is still the key set's key for that
 *   `kid`: once the key leaves the JWKS (or the JWKS is refetched with new key material) the token
 *   is verified in full again, and refused if its key is gone;
 * - at most `cacheEntries` entries, the oldest dropped first; refused tokens are never remembered,
 *   so a bad token is checked (and refused) every time.
 */
export function createVerifier(opts: VerifierOptions) {
  const keys = keySource(opts);
  const skewSeconds = opts.clockToleranceSeconds ?? 30;
  const nowMs = () => (opts.currentDate ? opts.currentDate().getTime() : Date.now());
  const cache = verifiedCache(opts.cacheEntries ?? VERIFIED_CACHE_ENTRIES, nowMs, keys);
  const stats = { hits: 0, misses: 0 };

  /**
   * The common case, synchronously (cache.quick: in date, under the key set in use, within its max
   * age); undefined when the token needs the full path (`verify`).
   */
  function peek(token: string): Principal | undefined {
    const quick = cache.quick(token);
    if (quick) stats.hits++;
    return quick;
  }

  const verify = async function verify(token: string): Promise<Principal> {
    const quick = peek(token);
    if (quick) return quick;
    const getKey =
      keys.current() ??
      (await keys.load().catch((err) => {
        throw new VerifierUnavailableError("identity provider keys are unavailable", { cause: err });
      }));
    const known = await cache.lookUp(token, getKey);
    if (known) {
      stats.hits++;
      return known;
    }
    stats.misses++;
    const before = keys.settled();
    const { payload, protectedHeader: header, key } = await verifySignature(token, getKey, opts, skewSeconds);
    const principal = accessTokenPrincipal(payload, header, {
      audience: opts.audience,
      requireTokenType: opts.requireTokenType ?? true,
      nowMs: nowMs(),
      skewSeconds,
    });
    cache.remember(token, {
      principal,
      header,
      key,
      until: (payload.exp as number) * 1000 - skewSeconds * 1000,
      generation: before === keys.settled() ? before : -2,
    });
    return principal;
  };
  /** Cache hits and misses so far, and the entries held now (for tests and metrics). */
  return Object.assign(verify, { peek, stats: () => ({ ...stats, entries: cache.size() }) });
}
/**
 * Verifies a bearer token. `peek`, when the verifier has one, answers a token it verified before
 * (and may still honour without a key lookup) synchronously, so a request's hook need not wait a
 * tick for it; undefined sends the token through the full (asynchronous) check.
 */
export type Verify = ((token: string) => Promise<Principal>) & { peek?: (token: string) => Principal | undefined };

/** The verifier every resource server builds from the configuration: the configured issuer's tokens, for AUTH_AUDIENCE. */
export function verifierFromConfig(
  config: {
    AUTH_JWKS_URL?: string | undefined;
    AUTH_AUDIENCE: string;
    AUTH_CLOCK_SKEW_SECONDS: number;
    AUTH_REQUIRE_TOKEN_TYPE?: boolean | undefined;
  },
  issuer: string,
): Verify {
  return createVerifier({
    issuer,
    jwksUrl: config.AUTH_JWKS_URL,
    audience: config.AUTH_AUDIENCE,
    clockToleranceSeconds: config.AUTH_CLOCK_SKEW_SECONDS,
    requireTokenType: config.AUTH_REQUIRE_TOKEN_TYPE ?? true,
  });
}

export class VerifierUnavailableError extends Error {
  override name = "VerifierUnavailableError";
}
