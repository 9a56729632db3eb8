import type { Principal, Verify } from "../../../shared/auth/verify-jwt.js";

export type VerifiedTokenCacheOptions = {
  /** How long a verified token is trusted without checking its signature again (never past its `exp`). */
  maxAgeMs?: number;
  maxEntries?: number;
  now?: () => number;
};

type Entry = { principal: Principal; until: number };

/**
 * Remembers tokens whose signature and claims were verified, for a short while and never past their
 * `exp`. A client sends the same access token with every request until it refreshes it, and the
 * signature check (RSA through WebCrypto) is the proxy's largest per-request cost; checking it once
 * per token and minute keeps the proxy's overhead small. Expiry is still enforced on every request;
 * a signing key withdrawn from the JWKS stops being honoured within `maxAgeMs`. Only successes are
 * kept, so a bad token is checked (and refused) every time.
 */
export function withVerifiedTokenCache(verify: Verify, opts: VerifiedTokenCacheOptions = {}): Verify {
  const maxAgeMs = opts.maxAgeMs ?? 60_000;
  const maxEntries = opts.maxEntries ?? 10_000;
  const now = opts.now ?? Date.now;
  const entries = new Map<string, Entry>();

  return async function verifyCached(token: string): Promise<Principal> {
    const hit = entries.get(token);
    const at = now();
    if (hit && hit.until > at) return hit.principal;
    if (hit) entries.delete(token);
    const principal = await verify(token);
    const exp = typeof principal.claims.exp === "number" ? principal.claims.exp * 1000 : at;
    const until = Math.min(exp, at + maxAgeMs);
    if (until > at) {
      entries.set(token, { principal, until });
      if (entries.size > maxEntries) {
        const oldest = entries.keys().next().value;
        if (oldest !== undefined) entries.delete(oldest);
      }
    }
    return principal;
  };
}
