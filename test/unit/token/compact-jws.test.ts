import assert from "node:assert/strict";
import { createSecretKey, generateKeyPairSync, randomBytes } from "node:crypto";
import { test } from "node:test";
import { jwtVerify } from "jose";
import { asymmetric, encodePart, hasHs512Signature, parseJws, signHs512 } from "../../../src/services/token/compact-jws.js";

const payload = { sub: "u-1", iss: "http://127.0.0.1/realms/r", exp: 2_000_000_000, name: 'Zoë \u2028 "quoted"' };

test("an RS256 JWS signed on the thread pool verifies with jose, header and payload intact", async () => {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const token = await asymmetric.sign("RS256", `${encodePart({ alg: "RS256", typ: "JWT", kid: "k1" })}.${encodePart(payload)}`, privateKey);
  const verified = await jwtVerify(token, publicKey, { algorithms: ["RS256"] });
  assert.deepEqual(verified.protectedHeader, { alg: "RS256", typ: "JWT", kid: "k1" });
  assert.deepEqual(verified.payload, payload);
});

test("an ES256 JWS carries the 64-byte r || s signature JWS wants and verifies with jose", async () => {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const token = await asymmetric.sign("ES256", `${encodePart({ alg: "ES256", typ: "JWT", kid: "e1" })}.${encodePart(payload)}`, privateKey);
  assert.equal(Buffer.from(token.split(".")[2]!, "base64url").length, 64, "IEEE P1363, not DER");
  const verified = await jwtVerify(token, publicKey, { algorithms: ["ES256"] });
  assert.deepEqual(verified.protectedHeader, { alg: "ES256", typ: "JWT", kid: "e1" });
  assert.deepEqual(verified.payload, payload);
});

test("an HS512 JWS verifies with jose and with its own check; another secret does not", async () => {
  const raw = randomBytes(64);
  const token = signHs512(`${encodePart({ alg: "HS512", typ: "JWT", kid: "h1" })}.${encodePart(payload)}`, createSecretKey(raw));
  assert.deepEqual((await jwtVerify(token, raw, { algorithms: ["HS512"] })).payload, payload);
  const parsed = parseJws(token);
  assert.ok(parsed);
  assert.deepEqual(parsed.payload, payload);
  assert.equal(hasHs512Signature(parsed, createSecretKey(raw)), true);
  assert.equal(hasHs512Signature(parsed, createSecretKey(randomBytes(64))), false);
  assert.equal(hasHs512Signature({ ...parsed, signature: parsed.signature.subarray(1) }, createSecretKey(raw)), false, "shorter: no throw");
});

test("parseJws takes only three strict base64url parts whose first two are JSON objects", () => {
  const h = encodePart({ alg: "HS512" });
  const p = encodePart({ sub: "x" });
  assert.ok(parseJws(`${h}.${p}.c2ln`));
  for (const bad of [
    "",
    "a.b",
    `${h}.${p}`,
    `${h}.${p}.`,
    `${h}.${p}.c2ln.c2ln`,
    `${h}.${p}.c2ln=`,
    `${h}.${p}.c2/n`,
    `${h} .${p}.c2ln`,
    `${encodePart([1] as unknown as Record<string, unknown>)}.${p}.c2ln`,
    `${h}.${Buffer.from("null").toString("base64url")}.c2ln`,
    `${h}.${Buffer.from("{").toString("base64url")}.c2ln`,
    `${h}.${"A".repeat(20_000)}.c2ln`,
  ]) {
    assert.equal(parseJws(bad), null, bad.slice(0, 40));
  }
});
