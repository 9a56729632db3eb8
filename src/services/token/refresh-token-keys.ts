import { createSecretKey, type KeyObject, randomBytes, randomUUID } from "node:crypto";
import { encodePart, hasHs512Signature, type ParsedJws, signHs512 } from "./compact-jws.js";
import { createKeyTable } from "./key-table.js";
import type { KeysRepository } from "./storage/keys.repository.js";
import type { RefreshTokenKeyRow } from "./storage/token.tables.js";

export const REFRESH_TOKEN_ALG = "HS512";

/** RFC 7518 §3.2: an HS512 key has at least as many bits as the hash's output, 512. */
const SECRET_BYTES = 64;

export type RefreshTokenKeyOptions = {
  repo: KeysRepository<"refresh">;
  now: () => number;
  /** Seconds a retired key keeps verifying: the longest lifetime of a refresh token it may have signed. */
  verifyRetiredFor: () => number;
  /** How long an instance trusts its copy of the key table; another instance may rotate meanwhile. */
  cacheTtlMs?: number;
};

type Signer = { kid: string; secret: KeyObject; header: string };
type Loaded = { signer: Signer | null; secrets: Map<string, KeyObject> };

const secretOf = (row: RefreshTokenKeyRow): KeyObject => createSecretKey(Buffer.from(String(row.secretJwk["k"]), "base64url"));

/**
 * The HMAC keys of refresh tokens (Keycloak's "hmac-generated" realm key: refresh tokens are HS512
 * JWTs that only the token service reads back, signed with keys it never publishes). The newest
 * active key signs; every active key and every retired key whose tokens may still live verifies.
 * Kept apart from the RSA key store because nothing of it is public: no JWKS, no `alg` a resource
 * server could be tricked into trusting. The secrets are never logged; only their kids are.
 */
export function createRefreshTokenKeys(opts: RefreshTokenKeyOptions) {
  const table = createKeyTable<RefreshTokenKeyRow, Loaded, Signer>({
    repo: opts.repo,
    now: opts.now,
    cacheTtlMs: opts.cacheTtlMs ?? 30_000,
    build(rows, previous) {
      const now = opts.now();
      const live = rows.filter((r) => r.retiredAt === null || (r.verifyUntil && r.verifyUntil.getTime() > now));
      const active = rows.filter((r) => r.retiredAt === null).at(-1);
      // Every token one key signs has the same header: it is encoded once per key.
      const signer = !active
        ? null
        : previous?.signer?.kid === active.kid
          ? previous.signer
          : { kid: active.kid, secret: secretOf(active), header: encodePart({ alg: REFRESH_TOKEN_ALG, typ: "JWT", kid: active.kid }) };
      return { signer, secrets: new Map(live.map((r) => [r.kid, secretOf(r)])) };
    },
    signerOf: (loaded) => loaded.signer,
    async generate() {
      // A random kid, as Keycloak's generated HMAC keys have: a thumbprint of a secret would be a hash of it.
      const kid = randomUUID();
      const secretJwk = { kty: "oct", kid, alg: REFRESH_TOKEN_ALG, use: "sig", k: randomBytes(SECRET_BYTES).toString("base64url") };
      await opts.repo.insert({ kid, alg: REFRESH_TOKEN_ALG, secretJwk, createdAt: new Date(opts.now()) });
      return kid;
    },
  });

  return {
    /** Creates the first key when the table is empty (first start, or the first start of this release). */
    async ensureKey(): Promise<void> {
      await table.signer();
    },

    /** The compact HS512 JWS of `payload`. */
    async sign(payload: Record<string, unknown>): Promise<string> {
      const { header, secret } = await table.signer();
      return signHs512(`${header}.${encodePart(payload)}`, secret);
    },

    /** Whether `jws` is HS512 and signed by one of our live keys (a kid we do not know makes one reload, see key-table.ts). */
    async hasValidSignature(jws: ParsedJws): Promise<boolean> {
      const { alg, kid } = jws.header;
      if (alg !== REFRESH_TOKEN_ALG || typeof kid !== "string") return false;
      const secret = (await table.load()).secrets.get(kid) ?? (await table.reloadForUnknownKid())?.secrets.get(kid);
      return secret !== undefined && hasHs512Signature(jws, secret);
    },

    /**
     * Makes a new key the signer. The keys it replaces keep verifying until every refresh token they
     * signed has expired (plus the instance cache), then the periodic cleanup drops them.
     */
    rotate: (): Promise<{ kid: string; retired: string[] }> => table.rotate(opts.verifyRetiredFor()),

    async deleteExpired(): Promise<number> {
      return table.afterDelete(await opts.repo.deleteExpired(new Date(opts.now())));
    },
  };
}
export type RefreshTokenKeys = ReturnType<typeof createRefreshTokenKeys>;
