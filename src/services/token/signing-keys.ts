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
import { createKeyTable } from "./key-table.js";
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
  signing: Signing | null;
  jwks: JSONWebKeySet;
  verifyKeys: ReturnType<typeof createLocalJWKSet>;
};

/**
 * The realm's signing keys: the newest active key signs (RS256, with its `kid`); every active key
 * and every retired key still inside its publication window is in the JWKS and verifies our own
 * tokens. Private keys are stored as JWKs in the database so restarts and other instances use the
 * same keys.
 */
export function createKeyStore(opts: KeyStoreOptions) {
  // The key table is re-read every `cacheTtl` (another instance may rotate), but a key is imported
  // once: the signing key by kid, the verification key set while the published kids stay the same.
  let signing: Signing | null = null;
  let published: { kids: string; jwks: JSONWebKeySet; verifyKeys: ReturnType<typeof createLocalJWKSet> } | undefined;

  const table = createKeyTable<SigningKeyRow, Loaded, Signing>({
    repo: opts.repo,
    now: opts.now,
    cacheTtlMs: opts.cacheTtlMs ?? 30_000,
    build(rows) {
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
      return { signing, jwks: published.jwks, verifyKeys: published.verifyKeys };
    },
    signerOf: (loaded) => loaded.signing,
    async generate() {
      const { privateKey, publicKey } = await generateKeyPair(SIGNING_ALG, { modulusLength: 2048, extractable: true });
      const pub = await exportJWK(publicKey);
      const kid = await calculateJwkThumbprint(pub);
      const publicJwk = { ...pub, kid, alg: SIGNING_ALG, use: "sig" };
      const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: SIGNING_ALG, use: "sig" };
      await opts.repo.insert({ kid, alg: SIGNING_ALG, privateJwk, publicJwk, createdAt: new Date(opts.now()) });
      return kid;
    },
  });

  return {
    /** Creates the first key when the table is empty (first start). */
    async ensureKey(): Promise<void> {
      await table.signer();
    },

    /** The compact RS256 JWS of `payload`, signed on the thread pool (see compact-jws.ts). */
    async sign(payload: JWTPayload): Promise<string> {
      const { header, key } = await table.signer();
      return signRs256(`${header}.${encodePart(payload)}`, key);
    },

    /** Verifies a token we issued (signature by a published key, `iss`, `exp`) at the service's clock. */
    async verify(token: string, issuer: string): Promise<JWTPayload> {
      const options = { issuer, algorithms: [SIGNING_ALG], currentDate: new Date(opts.now()) };
      try {
        return (await jwtVerify(token, (await table.load()).verifyKeys, options)).payload;
      } catch (err) {
        // Another instance may have rotated since we loaded: look again (see key-table.ts).
        const unknownKid = err instanceof Error && (err as { code?: string }).code === "ERR_JWKS_NO_MATCHING_KEY";
        const reloaded = unknownKid ? await table.reloadForUnknownKid() : null;
        if (!reloaded) throw err;
        return (await jwtVerify(token, reloaded.verifyKeys, options)).payload;
      }
    },

    async jwks(): Promise<JSONWebKeySet> {
      return (await table.load()).jwks;
    },

    /**
     * Makes a new key the signer. The keys it replaces stay published (and keep verifying) until
     * every token they signed has expired, then the periodic cleanup drops them.
     */
    rotate: (): Promise<{ kid: string; retired: string[] }> => table.rotate(opts.publishRetiredFor()),

    async deleteExpired(): Promise<number> {
      return table.afterDelete(await opts.repo.deleteUnpublished(new Date(opts.now())));
    },
  };
}
export type KeyStore = ReturnType<typeof createKeyStore>;
