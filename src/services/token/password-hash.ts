import { argon2, randomBytes, scrypt, timingSafeEqual } from "node:crypto";

/**
 * Password hashes: argon2id through Node's built-in `crypto.argon2` (no native addon; it runs on
 * the libuv pool so the event loop stays free) with a per-hash random salt, stored in the PHC
 * string format with its parameters: `$argon2id$v=19$m=<KiB>,t=<passes>,p=<lanes>$<salt>$<hash>`
 * (standard base64 without padding, as the reference implementation, libsodium and Keycloak's
 * argon2 provider write it). Raising the cost later leaves old hashes verifiable, and they are
 * upgraded on the next successful login (`needsRehash`).
 *
 * Hashes of the service's earlier releases (`scrypt$N$r$p$salt$hash`, base64url) still verify and
 * are upgraded the same way.
 */
export type HashParams = { memoryKiB: number; passes: number; parallelism: number };

/** OWASP's Password Storage Cheat Sheet minimum for argon2id: 19 MiB, 2 passes, 1 lane. */
export const OWASP_ARGON2ID: HashParams = { memoryKiB: 19456, passes: 2, parallelism: 1 };

const KEY_LENGTH = 32;
const SALT_LENGTH = 16;
const ARGON2_VERSION = 19; // 0x13, the only version Node implements

export function hashParams(config: {
  PASSWORD_HASH_MEMORY_KIB: number;
  PASSWORD_HASH_PASSES: number;
  PASSWORD_HASH_PARALLELISM: number;
}): HashParams {
  return { memoryKiB: config.PASSWORD_HASH_MEMORY_KIB, passes: config.PASSWORD_HASH_PASSES, parallelism: config.PASSWORD_HASH_PARALLELISM };
}

const normalize = (password: string) => password.normalize("NFKC");

function deriveArgon2id(password: string, salt: Buffer, params: HashParams, length: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    argon2(
      "argon2id",
      {
        message: normalize(password),
        nonce: salt,
        memory: params.memoryKiB,
        passes: params.passes,
        parallelism: params.parallelism,
        tagLength: length,
      },
      (err, key) => (err ? reject(err) : resolve(key)),
    ),
  );
}

const b64 = (buf: Buffer) => buf.toString("base64").replace(/=+$/, "");

export async function hashPassword(password: string, params: HashParams): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const key = await deriveArgon2id(password, salt, params, KEY_LENGTH);
  return `$argon2id$v=${ARGON2_VERSION}$m=${params.memoryKiB},t=${params.passes},p=${params.parallelism}$${b64(salt)}$${b64(key)}`;
}

type Parsed =
  | { kind: "argon2id"; params: HashParams; salt: Buffer; key: Buffer }
  | { kind: "scrypt"; params: { N: number; r: number; p: number }; salt: Buffer; key: Buffer };

const ARGON2ID_PHC = /^\$argon2id\$v=(\d+)\$m=(\d+),t=(\d+),p=(\d+)\$([A-Za-z0-9+/]{11,})\$([A-Za-z0-9+/]{16,})$/;

/** Bounds a stored hash must be within before we spend memory on it (a corrupt row cannot ask for 4 GiB). */
const within = (n: number, min: number, max: number) => Number.isSafeInteger(n) && n >= min && n <= max;

function parse(stored: string): Parsed | null {
  const phc = ARGON2ID_PHC.exec(stored);
  if (phc) {
    const [version, m, t, p] = phc.slice(1, 5).map(Number) as [number, number, number, number];
    if (version !== ARGON2_VERSION || !within(p, 1, 255) || !within(m, 8 * p, 4 * 1024 * 1024) || !within(t, 1, 100)) return null;
    return {
      kind: "argon2id",
      params: { memoryKiB: m, passes: t, parallelism: p },
      salt: Buffer.from(phc[5]!, "base64"),
      key: Buffer.from(phc[6]!, "base64"),
    };
  }
  const parts = stored.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return null;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (!within(N, 2, 2 ** 24) || (N & (N - 1)) !== 0 || !within(r, 1, 64) || !within(p, 1, 16)) return null;
  return { kind: "scrypt", params: { N, r, p }, salt: Buffer.from(parts[4]!, "base64url"), key: Buffer.from(parts[5]!, "base64url") };
}

function deriveScrypt(password: string, salt: Buffer, params: { N: number; r: number; p: number }, length: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // maxmem must exceed 128·N·r or node refuses; leave headroom for the p lanes.
    const maxmem = 128 * params.N * params.r * (params.p + 1) + 1024 * 1024;
    scrypt(normalize(password), salt, length, { ...params, maxmem }, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

/** Constant-time comparison of the derived key; a malformed stored hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parse(stored);
  if (!parsed || parsed.key.length < 16) return false;
  const key =
    parsed.kind === "argon2id"
      ? await deriveArgon2id(password, parsed.salt, parsed.params, parsed.key.length)
      : await deriveScrypt(password, parsed.salt, parsed.params, parsed.key.length);
  return timingSafeEqual(key, parsed.key);
}

/** True when `stored` is not an argon2id hash with exactly `params` (older scheme, or other cost). */
export function needsRehash(stored: string, params: HashParams): boolean {
  const parsed = parse(stored);
  return (
    parsed?.kind !== "argon2id" ||
    parsed.params.memoryKiB !== params.memoryKiB ||
    parsed.params.passes !== params.passes ||
    parsed.params.parallelism !== params.parallelism
  );
}

/**
 * Verifying against this costs the same as a real check, so an unknown username takes as long as
 * a known one with a wrong password and the answer time does not reveal which usernames exist.
 */
export async function dummyHash(params: HashParams): Promise<string> {
  return hashPassword(randomBytes(12).toString("base64url"), params);
}
