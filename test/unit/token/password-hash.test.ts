import assert from "node:assert/strict";
import { argon2Sync, randomBytes, scryptSync } from "node:crypto";
import { test } from "node:test";
import { hashPassword, needsRehash, OWASP_ARGON2ID, verifyPassword } from "../../../src/services/token/password-hash.js";

const params = { memoryKiB: 1024, passes: 1, parallelism: 1 };

/** A hash as the service's earlier releases stored it: `scrypt$N$r$p$salt$hash`, base64url. */
function legacyScrypt(password: string, N = 1024): string {
  const salt = randomBytes(16);
  const key = scryptSync(password.normalize("NFKC"), salt, 32, { N, r: 8, p: 1 });
  return ["scrypt", N, 8, 1, salt.toString("base64url"), key.toString("base64url")].join("$");
}

test("a hash verifies its own password and nothing else", async () => {
  const stored = await hashPassword("correct horse battery staple", params);
  assert.equal(await verifyPassword("correct horse battery staple", stored), true);
  assert.equal(await verifyPassword("correct horse battery stapl", stored), false);
  assert.equal(await verifyPassword("", stored), false);
});

test("the hash is argon2id in PHC string format, with its parameters and a per-hash salt", async () => {
  const a = await hashPassword("same password", OWASP_ARGON2ID);
  const b = await hashPassword("same password", OWASP_ARGON2ID);
  assert.match(a, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
  assert.notEqual(a, b, "two users with one password get different hashes");
  assert.equal(await verifyPassword("same password", b), true);
  // The hash is plain argon2id of the password: what any PHC-aware implementation computes.
  const [, , , , salt, hash] = a.split("$");
  const expected = argon2Sync("argon2id", {
    message: "same password",
    nonce: Buffer.from(salt!, "base64"),
    memory: 19456,
    passes: 2,
    parallelism: 1,
    tagLength: 32,
  });
  assert.equal(expected.toString("base64").replace(/=+$/, ""), hash);
});

test("a PHC hash made elsewhere (RFC 9106 parameters, 64 MiB, 3 passes, 4 lanes) verifies", async () => {
  const salt = randomBytes(16);
  const key = argon2Sync("argon2id", { message: "pw", nonce: salt, memory: 65536, passes: 3, parallelism: 4, tagLength: 32 });
  const b64 = (buf: Buffer) => buf.toString("base64").replace(/=+$/, "");
  const stored = `$argon2id$v=19$m=65536,t=3,p=4$${b64(salt)}$${b64(key)}`;
  assert.equal(await verifyPassword("pw", stored), true);
  assert.equal(await verifyPassword("pW", stored), false);
  assert.equal(needsRehash(stored, OWASP_ARGON2ID), true, "other parameters than the configured ones");
});

test("passwords are compared after Unicode normalisation", async () => {
  const stored = await hashPassword("caf\u00e9", params);
  assert.equal(await verifyPassword("cafe\u0301", stored), true);
});

test("scrypt hashes of earlier releases still verify and are flagged for an upgrade to argon2id", async () => {
  const old = legacyScrypt("pw");
  assert.equal(await verifyPassword("pw", old), true);
  assert.equal(await verifyPassword("pw2", old), false);
  assert.equal(needsRehash(old, params), true);
  assert.equal(needsRehash(await hashPassword("pw", params), params), false);
  assert.equal(needsRehash(await hashPassword("pw", params), OWASP_ARGON2ID), true, "a cost raised since is an upgrade too");
});

test("malformed stored hashes never match, and cannot ask for absurd costs", async () => {
  const good = await hashPassword("pw", params);
  const [, , , , salt, hash] = good.split("$");
  for (const stored of [
    "",
    "plain-text-password",
    "scrypt$x$8$1$abc$def",
    "bcrypt$1024$8$1$abc$def",
    "scrypt$1024$8$1$abc",
    "scrypt$1000$8$1$abcdefghijklmnopqrstuv$abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG",
    `$argon2id$v=16$m=1024,t=1,p=1$${salt}$${hash}`,
    `$argon2i$v=19$m=1024,t=1,p=1$${salt}$${hash}`,
    `$argon2id$v=19$m=99999999,t=1,p=1$${salt}$${hash}`,
    `$argon2id$v=19$m=1024,t=1,p=1$${salt}$`,
    `$argon2id$v=19$m=1024,t=1,p=1$${salt}$${hash}$`,
  ]) {
    assert.equal(await verifyPassword("pw", stored), false, stored);
    assert.equal(needsRehash(stored, params), true);
  }
});
