import { createHmac, sign, timingSafeEqual, type KeyObject } from "node:crypto";

/**
 * The token service's own JWS compact serialisation (RFC 7515 §7.1) for the two algorithms it signs
 * with, on node:crypto instead of jose's WebCrypto path. Profiled on the refresh grant, WebCrypto
 * spent ~70 µs of main-thread time per operation around the signature itself (algorithm
 * normalisation, key checks, the job's set-up), three times per refresh. Here an RS256 or ES256
 * signature is one `crypto.sign` with a callback, which runs on libuv's thread pool (the second core), and HS512 is
 * a synchronous HMAC of a few microseconds. Verification of RS256 and ES256 tokens stays with jose.
 */

const B64URL_JWS = /^[\w-]+\.[\w-]+\.[\w-]+$/;

/** One part of a compact JWS: the base64url of the JSON of a header or a payload. */
export const encodePart = (value: Record<string, unknown>): string => Buffer.from(JSON.stringify(value)).toString("base64url");

/** The asymmetric algorithms access and ID tokens may be signed with (AUTH_ACCESS_TOKEN_ALG). */
export const ASYMMETRIC_ALGS = ["RS256", "ES256"] as const;
export type AsymmetricAlg = (typeof ASYMMETRIC_ALGS)[number];

/**
 * Every asymmetric signature the token service makes goes through `asymmetric.sign`: one place to
 * count them (the refresh grant makes exactly one, see test/integration/token/es256-access-tokens.test.ts).
 */
export const asymmetric = {
  /**
   * The compact JWS of `header.payload` (`input`), signed on the thread pool: RS256 is
   * RSASSA-PKCS1-v1_5 with SHA-256; ES256 is ECDSA P-256 with SHA-256, its signature as JWS wants it
   * (r || s, 64 bytes, RFC 7518 §3.4) rather than DER.
   */
  sign(alg: AsymmetricAlg, input: string, key: KeyObject): Promise<string> {
    const signingKey = alg === "ES256" ? { key, dsaEncoding: "ieee-p1363" as const } : key;
    return new Promise((resolve, reject) => {
      sign("sha256", Buffer.from(input), signingKey, (err, signature) =>
        err ? reject(err) : resolve(`${input}.${signature.toString("base64url")}`),
      );
    });
  },
};

/**
 * HMAC with SHA-512 (HS512) of the signing input. The secret is a KeyObject made once per key: given
 * raw bytes, createHmac builds a new key object on every call (13 µs instead of 3 per HMAC).
 */
export const hs512 = (input: string, secret: KeyObject): Buffer => createHmac("sha512", secret).update(input).digest();

/** The compact JWS of `input` signed with HS512. */
export const signHs512 = (input: string, secret: KeyObject): string => `${input}.${hs512(input, secret).toString("base64url")}`;

export type ParsedJws = {
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
  /** The first two parts as sent: the bytes the signature was computed over. */
  input: string;
  signature: Buffer;
};

/**
 * Splits a compact JWS whose header and payload are JSON objects; null for anything else. Strict
 * base64url only (Buffer's decoder would skip stray characters), so one token has one spelling.
 * Nothing here is verified yet.
 */
export function parseJws(token: string): ParsedJws | null {
  if (token.length > 16_384 || !B64URL_JWS.test(token)) return null;
  const [h, p, s] = token.split(".") as [string, string, string];
  const header = decodeObject(h);
  const payload = header && decodeObject(p);
  if (!header || !payload) return null;
  return { header, payload, input: `${h}.${p}`, signature: Buffer.from(s, "base64url") };
}

function decodeObject(part: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Whether `jws` carries the HS512 signature of its own input under `secret`, compared in constant time. */
export function hasHs512Signature(jws: ParsedJws, secret: KeyObject): boolean {
  const expected = hs512(jws.input, secret);
  return jws.signature.length === expected.length && timingSafeEqual(jws.signature, expected);
}
