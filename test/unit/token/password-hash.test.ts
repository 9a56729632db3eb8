import assert from "node:assert/strict";
import { test } from "node:test";
import { defaultParams, hashPassword, needsRehash, verifyPassword } from "../../../src/services/token/password-hash.js";

const params = defaultParams(1024);

test("a hash verifies its own password and nothing else", async () => {
  const stored = await hashPassword("correct horse battery staple", params);
  assert.equal(await verifyPassword("correct horse battery staple", stored), true);
  assert.equal(await verifyPassword("correct horse battery stapl", stored), false);
  assert.equal(await verifyPassword("", stored), false);
});

test("the hash string carries scrypt, its parameters and a per-hash salt", async () => {
  const a = await hashPassword("same password", params);
  const b = await hashPassword("same password", params);
  assert.match(a, /^scrypt\$1024\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
  assert.notEqual(a, b, "two users with one password get different hashes");
  assert.equal(await verifyPassword("same password", b), true);
});

test("passwords are compared after Unicode normalisation", async () => {
  const stored = await hashPassword("caf\u00e9", params);
  assert.equal(await verifyPassword("cafe\u0301", stored), true);
});

test("hashes made with other parameters still verify and are flagged for an upgrade", async () => {
  const old = await hashPassword("pw", defaultParams(2048));
  assert.equal(await verifyPassword("pw", old), true);
  assert.equal(needsRehash(old, params), true);
  assert.equal(needsRehash(await hashPassword("pw", params), params), false);
});

test("malformed stored hashes never match", async () => {
  for (const stored of ["", "plain-text-password", "scrypt$x$8$1$abc$def", "bcrypt$1024$8$1$abc$def", "scrypt$1024$8$1$abc"]) {
    assert.equal(await verifyPassword("plain-text-password", stored), false, stored);
  }
});

test("the cost must be a power of two", () => {
  assert.throws(() => defaultParams(1000), /power of two/);
  assert.deepEqual(defaultParams(32768), { N: 32768, r: 8, p: 1 });
});
