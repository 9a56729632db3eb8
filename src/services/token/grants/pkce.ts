import { createHash, timingSafeEqual } from "node:crypto";

/** RFC 7636 §4.1: 43 to 128 characters of [A-Z] / [a-z] / [0-9] / "-" / "." / "_" / "~". */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
/** An S256 challenge: BASE64URL(SHA256(verifier)) without padding, 43 characters. */
const S256_CHALLENGE = /^[A-Za-z0-9\-_]{43}$/;

export const isPkceVerifier = (v: string) => VERIFIER.test(v);
export const isS256Challenge = (c: string) => S256_CHALLENGE.test(c);

/** Whether `verifier` hashes to `challenge` (S256), compared in constant time. */
export function s256Matches(verifier: string, challenge: string): boolean {
  const computed = Buffer.from(createHash("sha256").update(verifier, "ascii").digest("base64url"));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}
