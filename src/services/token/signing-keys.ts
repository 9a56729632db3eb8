import { createPrivateKey, type JsonWebKey, type KeyObject } from "node:crypto";
import {
  calculateJwkThumbprint,
  createLocalJWKSet,
  exportJWK,
  generateKeyPair,
  jwtVerify,
  type JSONWebKeySet,
  type JWK,
  type JWTPayload,
} from "jose";
import { encodePart, signRs256 } from "./compact-jws.js";
import type { SigningKeysRepository } from "./storage/signing-keys.repository.js";
import type { SigningKeyRow } from "./storage/token.tables.js";

export const SIGNING_ALG = "RS256";

export type KeyStoreOptions = {
  repo: SigningKeysRepository;
  now: () => number;
  /** Seconds a retired key stays in the JWKS: the longest lifetime of a token it may have signed. */
  publishRetiredFor: () => number;
  /** How long an instance trusts its copy of the key table; another instance may rotate meanwhile. */
  cacheTtlMs?: number;
};

/** The key that signs, as node:crypto uses it, and the encoded JWS header of every token it signs. */
type Signing = { kid: string; key: KeyObject; header: string };

type Loaded = {
  at: number;
  signing: Signing | null;
  jwks: JSONWebKeySet;
  verifyKeys: ReturnType<typeof createLocalJWKSet>;
};

/** After a token names a kid we do not know, wait this long before asking the database again. */
const UNKNOWN_KID_COOLDOWN_MS = 5_000;

/**
 * The realm's signing keys: the newest active key signs (RS256, with its `kid`); every active key
 * and every retired key still inside its publication window is in the JWKS and verifies our own
 * refresh tokens. Private keys are stored as JWKs in the database so restarts and other instances
 * use the same keys.
 */
export function createKeyStore(opts: KeyStoreOptions) {
  const cacheTtl = opts.cacheTtlMs ?? 30_000;
  let loaded: Loaded | undefined;
  let loading: Promise<Loaded> | undefined;
  let lastUnknownKidReload = -Infinity;

  // The key table is re-read every `cacheTtl` (another instance may rotate), but a key is imported
  // once: the signing key by kid, the verification key set while the published kids stay the same.
  let signing: Signing | null = null;
  let published: { kids: string; jwks: JSONWebKeySet; verifyKeys: ReturnType<typeof createLocalJWKSet> } | undefined;

  async function build(rows: SigningKeyRow[]): Promise<Loaded> {
    const now = opts.now();
    const live = rows.filter((r) => r.retiredAt === null || (r.publishUntil && r.publishUntil.getTime() > now));
    const active = rows.filter((r) => r.retiredAt === null).at(-1);
    if (!active) signing = null;
    else if (signing?.kid !== active.kid)
      signing = {
        kid: active.kid,
        key: createPrivateKey({ key: active.privateJwk as JsonWebKey, format: "jwk" }),
        header: encodePart({ alg: SIGNING_ALG, typ: "JWT", kid: active.kid }),
      };
    const kids = live.map((r) => r.kid).join(" ");
    if (published?.kids !== kids) {
      const jwks = { keys: live.map((r) => r.publicJwk as JWK) };
      published = { kids, jwks, verifyKeys: createLocalJWKSet(jwks) };
    }
    return { at: now, signing, jwks: published.jwks, verifyKeys: published.verifyKeys };
  }

  async function load(force = false): Promise<Loaded> {
    if (!force && loaded && opts.now() - loaded.at < cacheTtl) return loaded;
    loading ??= opts.repo
      .all()
      .then(build)
      .then((l) => (loaded = l))
      .finally(() => (loading = undefined));
    return loading;
  }

  async function generate(): Promise<string> {
    const { privateKey, publicKey } = await generateKeyPair(SIGNING_ALG, { modulusLength: 2048, extractable: true });
    const pub = await exportJWK(publicKey);
    const kid = await calculateJwkThumbprint(pub);
    const publicJwk = { ...pub, kid, alg: SIGNING_ALG, use: "sig" };
    const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: SIGNING_ALG, use: "sig" };
    await opts.repo.insert({ kid, alg: SIGNING_ALG, privateJwk, publicJwk, createdAt: new Date(opts.now()) });
    return kid;
  }

  async function signingKey(): Promise<Signing> {
    const current = await load();
    if (current.signing) return current.signing;
    await generate();
    const reloaded = await load(true);
    if (!reloaded.signing) throw new Error("no signing key after generating one");
    return reloaded.signing;
  }

  return {
    /** Creates the first key when the table is empty (first start). */
    async ensureKey(): Promise<void> {
      await signingKey();
    },

    /** The compact RS256 JWS of `payload`, signed on the thread pool (see compact-jws.ts). */
    async sign(payload: JWTPayload): Promise<string> {
      const { header, key } = await signingKey();
      return signRs256(`${header}.${encodePart(payload)}`, key);
    },

    /** Verifies a token we issued (signature by a published key, `iss`, `exp`) at the service's clock. */
    async verify(token: string, issuer: string): Promise<JWTPayload> {
      const options = { issuer, algorithms: [SIGNING_ALG], currentDate: new Date(opts.now()) };
      try {
        return (await jwtVerify(token, (await load()).verifyKeys, options)).payload;
      } catch (err) {
        // Another instance may have rotated since we loaded; look again, but not for every forged kid.
        const unknownKid = err instanceof Error && (err as { code?: string }).code === "ERR_JWKS_NO_MATCHING_KEY";
        if (!unknownKid || opts.now() - lastUnknownKidReload < UNKNOWN_KID_COOLDOWN_MS) throw err;
        lastUnknownKidReload = opts.now();
        return (await jwtVerify(token, (await load(true)).verifyKeys, options)).payload;
      }
    },

    async jwks(): Promise<JSONWebKeySet> {
      return (await load()).jwks;
    },

    /**
     * Makes a new key the signer. The keys it replaces stay published (and keep verifying) until
     * every token they signed has expired, then the periodic cleanup drops them.
     */
    async rotate(): Promise<{ kid: string; retired: string[] }> {
      const kid = await generate();
      const now = opts.now();
      const publishUntil = new Date(now + (opts.publishRetiredFor() * 1000 + cacheTtl));
      const retired = await opts.repo.retireAllExcept(kid, new Date(now), publishUntil);
      await load(true);
      return { kid, retired };
    },

    async deleteExpired(): Promise<number> {
      const removed = await opts.repo.deleteUnpublished(new Date(opts.now()));
      if (removed) await load(true);
      return removed;
    },
  };
}
export type KeyStore = ReturnType<typeof createKeyStore>;
