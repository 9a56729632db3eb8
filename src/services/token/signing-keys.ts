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
  type JWTVerifyOptions,
} from "jose";
import { ASYMMETRIC_ALGS, asymmetric, encodePart, type AsymmetricAlg } from "./compact-jws.js";
import { createKeyTable } from "./key-table.js";
import type { KeysRepository } from "./storage/keys.repository.js";
import type { SigningKeyRow } from "./storage/token.tables.js";

/** The algorithm of the previous releases' access, ID and refresh tokens, and the default (AUTH_ACCESS_TOKEN_ALG). */
export const SIGNING_ALG = "RS256";

export type KeyStoreOptions = {
  repo: KeysRepository<"signing">;
  /** What new tokens are signed with (AUTH_ACCESS_TOKEN_ALG): the newest active key of this algorithm signs. */
  alg?: AsymmetricAlg;
  now: () => number;
  /** Seconds a retired key stays in the JWKS: the longest lifetime of a token it may have signed. */
  publishRetiredFor: () => number;
  /** How long an instance trusts its copy of the key table; another instance may rotate meanwhile. */
  cacheTtlMs?: number;
};

/** The key that signs, as node:crypto uses it, and the encoded JWS header of every token it signs. */
type Signing = { kid: string; alg: AsymmetricAlg; key: KeyObject; header: string };

type Loaded = {
  signing: Signing | null;
  jwks: JSONWebKeySet;
  verifyKeys: ReturnType<typeof createLocalJWKSet>;
};

/** A new key pair of `alg`, stored as JWKs; answers its kid (the public key's thumbprint). */
async function generateSigningKey(opts: KeyStoreOptions, alg: AsymmetricAlg): Promise<string> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { modulusLength: 2048, extractable: true });
  const pub = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(pub);
  const publicJwk = { ...pub, kid, alg, use: "sig" };
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg, use: "sig" };
  await opts.repo.insert({ kid, alg, privateJwk, publicJwk, createdAt: new Date(opts.now()) });
  return kid;
}

/** Verifies a token we issued against the published keys, looking again once when it names a kid this copy lacks. */
async function verifyOwnToken(
  table: { load(): Promise<Loaded>; reloadForUnknownKid(): Promise<Loaded | null> },
  token: string,
  options: JWTVerifyOptions,
): Promise<JWTPayload> {
  try {
    return (await jwtVerify(token, (await table.load()).verifyKeys, options)).payload;
  } catch (err) {
    // Another instance may have rotated since we loaded: look again (see key-table.ts).
    const unknownKid = err instanceof Error && (err as { code?: string }).code === "ERR_JWKS_NO_MATCHING_KEY";
    const reloaded = unknownKid ? await table.reloadForUnknownKid() : null;
    if (!reloaded) throw err;
    return (await jwtVerify(token, reloaded.verifyKeys, options)).payload;
  }
}

/**
 * The realm's signing keys: the newest active key of the configured algorithm signs (RS256 by
 * default, ES256 configurable; with its `kid`); every active key and every retired key still inside
 * its publication window, of either algorithm, is in the JWKS and verifies our own tokens. After a
 * change of algorithm the first token signed generates a key of the new one; the keys of the other
 * stay published (their tokens keep verifying) until a rotation retires them. Private keys are
 * stored as JWKs in the database so restarts and other instances use the same keys.
 */
export function createKeyStore(opts: KeyStoreOptions) {
  const alg = opts.alg ?? SIGNING_ALG;
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
      const active = rows.filter((r) => r.retiredAt === null && r.alg === alg).at(-1);
      if (!active) signing = null;
      else if (signing?.kid !== active.kid)
        signing = {
          kid: active.kid,
          alg,
          key: createPrivateKey({ key: active.privateJwk as JsonWebKey, format: "jwk" }),
          header: encodePart({ alg, typ: "JWT", kid: active.kid }),
        };
      const kids = live.map((r) => r.kid).join(" ");
      if (published?.kids !== kids) {
        const jwks = { keys: live.map((r) => r.publicJwk as JWK) };
        published = { kids, jwks, verifyKeys: createLocalJWKSet(jwks) };
      }
      return { signing, jwks: published.jwks, verifyKeys: published.verifyKeys };
    },
    signerOf: (loaded) => loaded.signing,
    generate: () => generateSigningKey(opts, alg),
  });

  return {
    /** Creates the first key when the table is empty (first start). */
    async ensureKey(): Promise<void> {
      await table.signer();
    },

    /** The algorithm new tokens are signed with. */
    alg,

    /** The compact JWS of `payload` (RS256 or ES256), signed on the thread pool (see compact-jws.ts). */
    async sign(payload: JWTPayload): Promise<string> {
      const signer = await table.signer();
      return asymmetric.sign(signer.alg, `${signer.header}.${encodePart(payload)}`, signer.key);
    },

    /** Verifies a token we issued (signature by a published key, `iss`, `exp`) at the service's clock. */
    verify: (token: string, issuer: string): Promise<JWTPayload> =>
      verifyOwnToken(table, token, { issuer, algorithms: [...ASYMMETRIC_ALGS], currentDate: new Date(opts.now()) }),

    async jwks(): Promise<JSONWebKeySet> {
      return (await table.load()).jwks;
    },

    /**
     * Makes a new key the signer. The keys it replaces stay published (and keep verifying) until
     * every token they signed has expired, then the periodic cleanup drops them.
     */
    rotate: (): Promise<{ kid: string; retired: string[] }> => table.rotate(opts.publishRetiredFor()),

    async deleteExpired(): Promise<number> {
      return table.afterDelete(await opts.repo.deleteExpired(new Date(opts.now())));
    },
  };
}
export type KeyStore = ReturnType<typeof createKeyStore>;
