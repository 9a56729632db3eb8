import assert from "node:assert/strict";
import { test } from "node:test";
import { withVerifiedTokenCache } from "../../../src/services/proxy/auth/verified-tokens.js";
import type { Principal } from "../../../src/shared/auth/verify-jwt.js";

const principal = (exp: number): Principal => ({ sub: "u", orgId: "o", username: null, email: null, scope: "", claims: { exp } });

test("a verified token is trusted until the earlier of its exp and the max age; failures are never cached", async () => {
  let clock = 1_000_000_000_000;
  const calls: string[] = [];
  const verify = async (token: string) => {
    calls.push(token);
    if (token === "bad") throw new Error("invalid");
    return principal(Math.floor(clock / 1000) + (token === "short" ? 10 : 3600));
  };
  const cached = withVerifiedTokenCache(verify, { maxAgeMs: 60_000, now: () => clock });

  await cached("good");
  await cached("good");
  assert.deepEqual(calls, ["good"], "the second use needs no signature check");
  clock += 60_001;
  await cached("good");
  assert.deepEqual(calls, ["good", "good"], "checked again after the max age");

  await cached("short");
  clock += 9_000;
  await cached("short");
  assert.equal(calls.filter((c) => c === "short").length, 1);
  clock += 1_001;
  await cached("short");
  assert.equal(calls.filter((c) => c === "short").length, 2, "never trusted past its exp");

  await assert.rejects(cached("bad"));
  await assert.rejects(cached("bad"));
  assert.equal(calls.filter((c) => c === "bad").length, 2, "a refused token is checked every time");
});
