import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";

/**
 * Password hashes: scrypt (memory-hard, in node's crypto, runs on the libuv pool so the event loop
 * stays free) with a per-user random salt. The parameters travel inside the hash string
 * (`scrypt$N$r$p$salt$hash`, base64url), so raising the cost later leaves old hashes verifiable
 * and they are upgraded on the next successful login.
 */
export type ScryptParams = { N: number; r: number; p: number };

const KEY_LENGTH = 32;
const SALT_LENGTH = 16;
const PREFIX = "scrypt";

export function defaultParams(N: number): ScryptParams {
  if (!Number.isInteger(N) || N < 2 || (N & (N - 1)) !== 0) throw new Error(`scrypt N must be a power of two, got ${N}`);
  return { N, r: 8, p: 1 };
}

function derive(password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // maxmem must exceed 128·N·r or node refuses; leave headroom for the p lanes.
    const maxmem = 128 * params.N * params.r * (params.p + 1) + 1024 * 1024;
    scrypt(password.normalize("NFKC"), salt, KEY_LENGTH, { ...params, maxmem }, (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });
}

export async function hashPassword(password: string, params: ScryptParams): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const key = await derive(password, salt, params);
  return [PREFIX, params.N, params.r, params.p, salt.toString("base64url"), key.toString("base64url")].join("$");
}

type Parsed = { params: ScryptParams; salt: Buffer; key: Buffer };

function parse(stored: string): Parsed | null {
  const parts = stored.split("$");
  if (parts.length !== 6 || parts[0] !== PREFIX) return null;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (![N, r, p].every((n) => Number.isInteger(n) && n > 0)) return null;
  return { params: { N, r, p }, salt: Buffer.from(parts[4]!, "base64url"), key: Buffer.from(parts[5]!, "base64url") };
}

/** Constant-time comparison of the derived key; a malformed stored hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parse(stored);
  if (!parsed) return false;
  const key = await derive(password, parsed.salt, parsed.params);
  return key.length === parsed.key.length && timingSafeEqual(key, parsed.key);
}

/** True when `stored` was made with weaker (or different) parameters than `params`. */
export function needsRehash(stored: string, params: ScryptParams): boolean {
  const parsed = parse(stored);
  return !parsed || parsed.params.N !== params.N || parsed.params.r !== params.r || parsed.params.p !== params.p;
}

/**
 * Verifying against this costs the same as a real check, so an unknown username takes as long as
 * a known one with a wrong password and the answer time does not reveal which usernames exist.
 */
export async function dummyHash(params: ScryptParams): Promise<string> {
  return hashPassword(randomBytes(12).toString("base64url"), params);
}
