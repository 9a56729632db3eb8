import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { hashPassword, OWASP_ARGON2ID, verifyPassword } from "../../../src/services/token/password-hash.js";
import { describeEachDatabase } from "../../helpers/db.js";
import { buildHarness, type Harness } from "./harness.js";

const INVALID = { error: "invalid_grant", error_description: "Invalid user credentials" };

describeEachDatabase("brute-force protection", (getDb) => {
  let h: Harness;
  before(async () => {
    h = await buildHarness(getDb(), { overrides: { BRUTE_FORCE_MAX_FAILURES: 3, BRUTE_FORCE_LOCKOUT_SECONDS: 60 } });
  });
  after(() => h.app.close());

  const failures = async (userId: string) =>
    (await getDb().query<{ failures: number }>("select failures from token_login_failures where user_id = $1", [userId]))[0]?.failures ?? 0;

  test("after the maximum failures even the right password is refused, exactly like a wrong one, until the lock runs out", async () => {
    const user = await h.newUser();
    for (let i = 0; i < 3; i++) assert.equal((await h.password(user.username, "wrong")).status, 401);
    const locked = await h.password(user.username, user.password);
    const unknown = await h.password("no-such-user-anywhere", user.password);
    assert.deepEqual([locked.status, locked.body], [401, INVALID]);
    assert.deepEqual([unknown.status, unknown.body], [401, INVALID]);

    h.clock.advance(59);
    assert.equal((await h.password(user.username, user.password)).status, 401);
    h.clock.advance(2);
    assert.equal((await h.password(user.username, user.password)).status, 200);
    assert.equal(await failures(user.id), 0, "a successful login clears the counter");
  });

  test("failures while locked neither count nor extend the lock", async () => {
    const user = await h.newUser();
    for (let i = 0; i < 3; i++) await h.password(user.username, "wrong");
    h.clock.advance(30);
    for (let i = 0; i < 5; i++) assert.equal((await h.password(user.username, "wrong")).status, 401);
    h.clock.advance(31);
    assert.equal((await h.password(user.username, user.password)).status, 200);
  });

  test("a successful login resets the count, so failures must be consecutive", async () => {
    const user = await h.newUser();
    for (let round = 0; round < 3; round++) {
      await h.password(user.username, "wrong");
      await h.password(user.username, "wrong");
      assert.equal((await h.password(user.username, user.password)).status, 200, `round ${round}`);
    }
  });

  test("concurrent failures all count", async () => {
    const user = await h.newUser();
    const results = await Promise.all([1, 2, 3, 4, 5].map(() => h.password(user.username, "wrong")));
    assert.ok(results.every((r) => r.status === 401));
    assert.equal((await h.password(user.username, user.password)).status, 401);
  });

  test("unknown usernames leave no trace; a known user's failures are counted", async () => {
    const before = (await getDb().query<{ n: string }>("select count(*)::text as n from token_login_failures"))[0]!.n;
    await h.password("ghost-user-1", "x");
    await h.password("ghost-user-2", "x");
    const afterUnknown = (await getDb().query<{ n: string }>("select count(*)::text as n from token_login_failures"))[0]!.n;
    assert.equal(afterUnknown, before);
    const user = await h.newUser();
    await h.password(user.username, "wrong");
    await h.password(user.username, "wrong");
    assert.equal(await failures(user.id), 2);
  });

  test("an admin password reset lets a locked-out user back in", async () => {
    const user = await h.newUser();
    for (let i = 0; i < 3; i++) await h.password(user.username, "wrong");
    assert.equal(
      (await h.admin("PUT", `/users/${user.id}/reset-password`, { type: "password", value: "fresh-pass", temporary: false })).status,
      204,
    );
    assert.equal((await h.password(user.username, "fresh-pass")).status, 200);
    assert.equal((await h.password(user.username, user.password)).status, 401, "the old password is gone");
  });

  test("an unknown username costs a full password check, so timing does not reveal it", async () => {
    const slow = await buildHarness(getDb(), { overrides: { PASSWORD_HASH_MEMORY_KIB: 19456, PASSWORD_HASH_PASSES: 2 } });
    try {
      const user = await slow.newUser();
      const time = async (username: string) => {
        const t = performance.now();
        assert.equal((await slow.password(username, "wrong-password")).status, 401);
        return performance.now() - t;
      };
      // Each cost is the fastest of several interleaved samples: load only ever adds time, so the
      // minimum is the closest to what the work itself costs, and interleaving lets a busy moment
      // stretch all three kinds alike instead of one of them.
      const stored = await hashPassword("some-password", OWASP_ARGON2ID);
      const verification = async () => {
        const t = performance.now();
        await verifyPassword("wrong-password", stored);
        return performance.now() - t;
      };
      await time("warm-up-unknown");
      const known: number[] = [];
      const unknown: number[] = [];
      const checks: number[] = [];
      for (let i = 0; i < 6; i++) {
        checks.push(await verification());
        known.push(await time(user.username));
        unknown.push(await time(`nobody-${i}`));
      }
      // One argon2id verification at these parameters costs ~19 ms on a fast machine and 50+ on a
      // slow one; without the dummy verification an unknown user answers in ~1 ms. Both answers
      // must cost at least about one verification.
      const check = Math.min(...checks);
      const fastest = { known: Math.min(...known), unknown: Math.min(...unknown) };
      assert.ok(fastest.known > check * 0.5, `known-user answer took ${fastest.known} ms, one verification ${check} ms`);
      assert.ok(fastest.unknown > check * 0.5, `unknown-user answer took ${fastest.unknown} ms, one verification ${check} ms`);
    } finally {
      await slow.app.close();
    }
  });
});
