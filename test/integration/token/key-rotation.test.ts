import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createVerifier } from "../../../src/shared/auth/verify-jwt.js";
import { longestTokenLifetime } from "../../../src/services/token/token-context.js";
import { describeEachDatabase } from "../../helpers/db.js";
import { freePort } from "../../helpers/ports.js";
import { buildHarness, kidOf, testClock, type Harness } from "./harness.js";

describeEachDatabase("signing key rotation", (getDb) => {
  let h: Harness;
  let issuer: string;
  let port: number;
  before(async () => {
    port = await freePort();
    h = await buildHarness(getDb(), { overrides: { AUTH_PORT: port } });
    await h.app.listen({ host: "127.0.0.1", port });
    issuer = `http://127.0.0.1:${port}/realms/hirebridge`;
  });
  after(() => h.app.close());

  const jwksKids = async (app = h.app) =>
    ((await app.inject({ url: "/realms/hirebridge/protocol/openid-connect/certs" })).json().keys as { kid: string }[]).map((k) => k.kid);

  test("the rotate endpoint needs an admin token", async () => {
    const res = await h.app.inject({ method: "POST", url: "/admin/realms/hirebridge/hirebridge/keys/rotate" });
    assert.deepEqual([res.statusCode, res.json()], [401, { error: "HTTP 401 Unauthorized" }]);
    const { tokens } = await h.login();
    assert.equal((await h.admin("POST", "/hirebridge/keys/rotate", undefined, tokens.access_token)).status, 401);
  });

  test("after rotation new tokens carry the new kid; old tokens keep verifying and refreshing", async () => {
    const verify = createVerifier({ issuer, jwksCooldownMs: 0 });
    const before = await h.login();
    const oldKid = kidOf(before.tokens.access_token)!;
    const oldRefreshKid = kidOf(before.tokens.refresh_token)!;
    assert.equal((await verify(before.tokens.access_token)).sub, before.user.id); // caches the JWKS with the old key only

    const res = await h.admin("POST", "/hirebridge/keys/rotate");
    assert.equal(res.status, 200);
    assert.notEqual(res.body.kid, oldKid);
    assert.ok(res.body.retired.includes(oldKid));
    assert.deepEqual((await jwksKids()).sort(), [oldKid, res.body.kid].sort());
    assert.notEqual(res.body.refresh_token_key.kid, oldRefreshKid);
    assert.ok(res.body.refresh_token_key.retired.includes(oldRefreshKid));
    assert.ok(!(await jwksKids()).includes(res.body.refresh_token_key.kid), "the HMAC key is never published");

    const afterLogin = await h.login();
    assert.equal(kidOf(afterLogin.tokens.access_token), res.body.kid);
    assert.equal(kidOf(afterLogin.tokens.refresh_token), res.body.refresh_token_key.kid);
    // The verifier meets an unknown kid, refetches the JWKS and accepts the token.
    assert.equal((await verify(afterLogin.tokens.access_token)).sub, afterLogin.user.id);
    assert.equal((await verify(before.tokens.access_token)).sub, before.user.id);

    const refreshed = await h.refresh(before.tokens.refresh_token);
    assert.equal(refreshed.status, 200, "a refresh token signed by the retired HMAC key still works");
    assert.equal(kidOf(refreshed.body.access_token), res.body.kid);
  });

  test("keys survive a restart and are shared by instances over one database", async () => {
    const { tokens } = await h.login();
    const kid = kidOf(tokens.access_token);
    // Same public URL (so the same issuer), same database: a restart, or a second instance.
    const restarted = await buildHarness(getDb(), { clock: h.clock, overrides: { AUTH_PORT: port } });
    try {
      const again = await restarted.login();
      assert.equal(kidOf(again.tokens.access_token), kid, "the restarted instance signs with the stored key");
      assert.equal((await restarted.refresh(tokens.refresh_token)).status, 200, "tokens of the old process still refresh");

      // Rotation on one instance: the other sees the new kid on first use (unknown kid → reload).
      const { refresh_token_key: newKey } = await restarted.rotateKeys();
      const fresh = await restarted.login();
      assert.equal(kidOf(fresh.tokens.refresh_token), newKey.kid);
      assert.equal((await h.refresh(fresh.tokens.refresh_token)).status, 200);
    } finally {
      await restarted.app.close();
    }
  });
  // Last: it moves a clock past every key's window and purges, which would pull keys from under the tests above.
  test("a retired key leaves the JWKS once every token it signed has expired, and is then purged", async () => {
    const clock = testClock();
    const timed = await buildHarness(getDb(), { clock });
    try {
      const { tokens } = await timed.login();
      const oldKid = kidOf(tokens.access_token)!;
      const oldRefreshKid = kidOf(tokens.refresh_token)!;
      const { kid } = await timed.rotateKeys();
      assert.ok((await jwksKids(timed.app)).includes(oldKid));

      clock.advance(longestTokenLifetime(timed.config) - 60);
      assert.ok((await jwksKids(timed.app)).includes(oldKid), "still published while its tokens may live");

      clock.advance(120); // past the window (+ the 30 s instance cache)
      assert.deepEqual(await jwksKids(timed.app), [kid]);
      const purged = await timed.purgeExpired();
      assert.ok(purged.keys >= 2);
      const rows = await getDb().query<{ kid: string }>("select kid from token_signing_keys where kid = $1", [oldKid]);
      assert.deepEqual(rows, []);
      const hmac = await getDb().query<{ kid: string }>("select kid from token_refresh_token_keys where kid = $1", [oldRefreshKid]);
      assert.deepEqual(hmac, [], "the retired HMAC key is purged with it");
    } finally {
      await timed.app.close();
    }
  });
});
