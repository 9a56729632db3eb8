/**
 * The shared verifier's cache of verified tokens: a hit costs no signature check, an entry never
 * outlives the token's exp minus the clock skew nor its key's presence in the JWKS, the cache is
 * bounded, and refused tokens are never remembered. The JWKS is served over HTTP on loopback, as
 * an issuer serves it, so jose's own key-set caching is part of what is tested.
 */
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { test } from "node:test";
import { exportJWK, generateKeyPair, SignJWT, type JWK } from "jose";
import { bearerAuth } from "../../../src/shared/auth/bearer.plugin.js";
import { createVerifier, TokenInvalidError, type VerifierOptions } from "../../../src/shared/auth/verify-jwt.js";
import { createApp } from "../../../src/shared/http/create-app.js";
import { createLogger } from "../../../src/shared/http/logger.js";

const ISSUER = "https://issuer.test/realms/hirebridge";

async function signingKey(kid: string) {
  const { privateKey, publicKey } = await generateKeyPair("RS256");
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: "RS256", use: "sig" };
  const sign = (claims: Record<string, unknown>) =>
    new SignJWT({ iss: ISSUER, sub: "user-1", typ: "Bearer", org_id: "org-1", ...claims })
      .setProtectedHeader({ alg: "RS256", kid, typ: "JWT" })
      .sign(privateKey);
  return { jwk, sign };
}

/** A JWKS endpoint whose key list the test changes; counts its fetches. */
async function jwksServer(t: { after(fn: () => Promise<void>): void }, keys: JWK[]) {
  const state = { keys, fetches: 0 };
  const server = createServer((_req, res) => {
    state.fetches++;
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ keys: state.keys }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return Object.assign(state, { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/certs` });
}

function verifier(jwksUrl: string, extra: Partial<VerifierOptions> = {}) {
  return createVerifier({ issuer: ISSUER, jwksUrl, clockToleranceSeconds: 30, ...extra });
}

const now = () => Math.floor(Date.now() / 1000);

test("a verified token is answered from the cache until its exp minus the skew, then checked in full, then refused after exp + skew", async (t) => {
  const a = await signingKey("a");
  const jwks = await jwksServer(t, [a.jwk]);
  const t0 = now();
  let clock = t0 * 1000;
  const verify = verifier(jwks.url, { currentDate: () => new Date(clock) });
  const token = await a.sign({ iat: t0, exp: t0 + 100 });

  const first = await verify(token);
  assert.deepEqual([first.sub, first.orgId], ["user-1", "org-1"]);
  assert.deepEqual(verify.stats(), { hits: 0, misses: 1, entries: 1 });
  clock = (t0 + 69) * 1000;
  assert.equal(await verify(token), first, "the same principal, from the cache");
  assert.deepEqual(verify.stats(), { hits: 1, misses: 1, entries: 1 });

  clock = (t0 + 70) * 1000; // exp - skew: the entry is over; the token is still within the tolerance
  await verify(token);
  assert.deepEqual(verify.stats(), { hits: 1, misses: 2, entries: 0 }, "checked in full, and not remembered again");

  clock = (t0 + 131) * 1000; // past exp + skew
  await assert.rejects(verify(token), (err: Error) => err instanceof TokenInvalidError && err.message === "token has expired");
  assert.equal(jwks.fetches, 1);
});

test("a cached token whose key leaves the JWKS is refused once the key set is refetched (unknown kid, or max age)", async (t) => {
  const [a, b] = [await signingKey("a"), await signingKey("b")];
  const jwks = await jwksServer(t, [a.jwk]);
  const verify = verifier(jwks.url, { jwksCooldownMs: 0 });
  const tokenA = await a.sign({ exp: now() + 300 });
  await verify(tokenA);
  await verify(tokenA);
  assert.deepEqual(verify.stats(), { hits: 1, misses: 1, entries: 1 });

  // The issuer withdraws key a; a token of the new key b makes the verifier refetch the key set.
  jwks.keys = [b.jwk];
  await verify(await b.sign({ exp: now() + 300 }));
  assert.equal(jwks.fetches, 2);
  await assert.rejects(verify(tokenA), (err: Error) => err instanceof TokenInvalidError && err.message === "token signing key is unknown");
  await assert.rejects(verify(tokenA), TokenInvalidError, "and stays refused");

  // Through the bearer hook the same token answers 401 with the spec's shape.
  const app = createApp({ service: "test", logger: createLogger("silent") });
  app.register(async (scope) => {
    scope.addHook("onRequest", bearerAuth(verify));
    scope.get("/whoami", async () => ({ ok: true }));
  });
  const res = await app.inject({ url: "/whoami", headers: { authorization: `Bearer ${tokenA}` } });
  assert.deepEqual([res.statusCode, res.json()], [401, { detail: "Invalid token: token signing key is unknown" }]);
  await app.close();

  // Without any other token: a key set past its max age is refetched on the next cached use.
  const c = await signingKey("c");
  const jwks2 = await jwksServer(t, [c.jwk]);
  const aged = verifier(jwks2.url, { jwksMaxAgeMs: 100 });
  const tokenC = await c.sign({ exp: now() + 300 });
  await aged(tokenC);
  await aged(tokenC);
  assert.equal(aged.stats().hits, 1);
  jwks2.keys = [];
  await sleep(150);
  await assert.rejects(aged(tokenC), (err: Error) => err instanceof TokenInvalidError && err.message === "token signing key is unknown");
  assert.equal(aged.stats().entries, 0);
});

test("the cache holds at most cacheEntries tokens (oldest out), never a refused token, and can be turned off", async (t) => {
  const a = await signingKey("a");
  const jwks = await jwksServer(t, [a.jwk]);
  const verify = verifier(jwks.url, { cacheEntries: 2 });
  const tokens = await Promise.all([1, 2, 3].map((i) => a.sign({ exp: now() + 300, jti: `t${i}` })));
  for (const token of tokens) await verify(token);
  assert.equal(verify.stats().entries, 2);
  await verify(tokens[2]!);
  await verify(tokens[0]!);
  assert.deepEqual(verify.stats(), { hits: 1, misses: 4, entries: 2 }, "the first token was dropped, the last kept");

  const [head, , sig] = tokens[0]!.split(".");
  const forged = `${head}.${Buffer.from(JSON.stringify({ iss: ISSUER, sub: "admin", exp: now() + 300 })).toString("base64url")}.${sig}`;
  for (let i = 0; i < 2; i++)
    await assert.rejects(verify(forged), (err: Error) => err instanceof TokenInvalidError && err.message === "token signature is invalid");
  assert.deepEqual(verify.stats(), { hits: 1, misses: 6, entries: 2 });

  const uncached = verifier(jwks.url, { cacheEntries: 0 });
  await uncached(tokens[0]!);
  await uncached(tokens[0]!);
  assert.deepEqual(uncached.stats(), { hits: 0, misses: 2, entries: 0 });
});
