import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { describeEachDatabase } from "../../helpers/db.js";
import { buildHarness, claims, testClock, type Harness } from "./harness.js";

const grantError = (description: string) => ({ error: "invalid_grant", error_description: description });

describeEachDatabase("token endpoint: refresh grant", (getDb) => {
  let h: Harness;
  before(async () => {
    h = await buildHarness(getDb());
  });
  after(() => h.app.close());

  test("every refresh returns a new refresh token in the same session, with fresh lifetimes", async () => {
    const { user, tokens } = await h.login();
    h.clock.advance(600);
    const first = await h.refresh(tokens.refresh_token);
    assert.equal(first.status, 200);
    assert.equal(first.body.session_state, tokens.session_state);
    assert.equal(first.body.expires_in, 1800);
    assert.equal(first.body.refresh_expires_in, 1800);
    assert.notEqual(first.body.refresh_token, tokens.refresh_token);
    const access = claims(first.body.access_token);
    assert.equal(access.sub, user.id);
    assert.equal(access["org_id"], user.orgId);
    assert.equal(access.iat, Math.floor(h.clock.now() / 1000));
    const second = await h.refresh(first.body.refresh_token);
    assert.equal(second.status, 200);
    assert.notEqual(second.body.refresh_token, first.body.refresh_token);
    const row = await h.context.sessions.findById(tokens.session_state);
    assert.equal(row?.refreshCount, 2);
    assert.equal(row?.refreshJti, claims(second.body.refresh_token).jti);
  });

  test("reusing a spent refresh token ends the session: the newer token dies too", async () => {
    const { tokens } = await h.login();
    const rotated = await h.refresh(tokens.refresh_token);
    assert.equal(rotated.status, 200);
    const replay = await h.refresh(tokens.refresh_token);
    assert.equal(replay.status, 400);
    assert.deepEqual(replay.body, grantError("Maximum allowed refresh token reuse exceeded"));
    const victim = await h.refresh(rotated.body.refresh_token);
    assert.equal(victim.status, 400);
    assert.deepEqual(victim.body, grantError("Session doesn't have required client"));
    const row = await h.context.sessions.findById(tokens.session_state);
    assert.equal(row?.endedReason, "reuse");
  });

  test("an older token of the family is stale, and also ends the session", async () => {
    const { tokens } = await h.login();
    const r1 = await h.refresh(tokens.refresh_token);
    const r2 = await h.refresh(r1.body.refresh_token);
    assert.equal(r2.status, 200);
    const stale = await h.refresh(tokens.refresh_token);
    assert.deepEqual([stale.status, stale.body], [400, grantError("Stale token")]);
    const newest = await h.refresh(r2.body.refresh_token);
    assert.deepEqual([newest.status, newest.body], [400, grantError("Session doesn't have required client")]);
  });

  test("two concurrent refreshes of one token: exactly one wins, then the session is dead", async () => {
    const { tokens } = await h.login();
    const results = await Promise.all([h.refresh(tokens.refresh_token), h.refresh(tokens.refresh_token)]);
    const winners = results.filter((r) => r.status === 200);
    const losers = results.filter((r) => r.status !== 200);
    assert.equal(winners.length, 1);
    assert.equal(losers.length, 1);
    assert.equal(losers[0]!.status, 400);
    assert.equal(losers[0]!.body.error, "invalid_grant");
    const after = await h.refresh(winners[0]!.body.refresh_token);
    assert.deepEqual([after.status, after.body], [400, grantError("Session doesn't have required client")]);
  });

  test("two instances over one database refreshing one token at once: exactly one wins", async () => {
    const other = await buildHarness(getDb(), { clock: h.clock });
    try {
      for (let round = 0; round < 3; round++) {
        const { tokens } = await h.login();
        const results = await Promise.all([h.refresh(tokens.refresh_token), other.refresh(tokens.refresh_token)]);
        assert.deepEqual(results.map((r) => r.status).sort(), [200, 400]);
      }
    } finally {
      await other.app.close();
    }
  });

  test("four concurrent refreshes: one success, three invalid_grant (as observed on Keycloak)", async () => {
    const { tokens } = await h.login();
    const results = await Promise.all([1, 2, 3, 4].map(() => h.refresh(tokens.refresh_token)));
    assert.deepEqual(results.map((r) => r.status).sort(), [200, 400, 400, 400]);
  });

  test("the rotation compare-and-set under 16 concurrent callers: exactly one rotates, once, to its own jti", async () => {
    const { tokens } = await h.login();
    const { sid, sub, jti } = claims(tokens.refresh_token) as { sid: string; sub: string; jti: string };
    const now = h.clock.now();
    const nextJtis = Array.from({ length: 16 }, () => crypto.randomUUID());
    const results = await Promise.all(
      nextJtis.map((nextJti) =>
        h.context.sessions.rotateLive({
          sid,
          realm: "hirebridge",
          userId: sub,
          presentedJti: jti,
          nextJti,
          now: new Date(now),
          idleBefore: new Date(now - 1800_000),
          startedBefore: new Date(now - 36000_000),
        }),
      ),
    );
    const winners = results.flatMap((r, i) => (r ? [{ r, nextJti: nextJtis[i]! }] : []));
    assert.equal(winners.length, 1);
    assert.equal(winners[0]!.r.session.id, sid);
    assert.equal(winners[0]!.r.user.id, sub, "the user for the claims comes back with the swap");
    const row = await h.context.sessions.findById(sid);
    assert.deepEqual([row?.refreshCount, row?.refreshJti, row?.previousJti, row?.endedAt], [1, winners[0]!.nextJti, jti, null]);
    // The loser's token is then a reuse: the grant ends the session.
    const replay = await h.refresh(tokens.refresh_token);
    assert.deepEqual([replay.status, replay.body], [400, grantError("Maximum allowed refresh token reuse exceeded")]);
    assert.equal((await h.context.sessions.findById(sid))?.endedReason, "reuse");
  });

  test("refreshes of many sessions at once (one rotation statement): each gets its own user and rotates once; a reuse among them ends only its session", async () => {
    const logins = await Promise.all(Array.from({ length: 8 }, () => h.login()));
    const spent = logins[0]!.tokens.refresh_token;
    assert.equal((await h.refresh(spent)).status, 200, "the first session's token is spent before the burst");
    const results = await Promise.all(logins.map((l) => h.refresh(l.tokens.refresh_token)));
    assert.deepEqual([results[0]!.status, results[0]!.body], [400, grantError("Maximum allowed refresh token reuse exceeded")]);
    assert.equal((await h.context.sessions.findById(logins[0]!.tokens.session_state))?.endedReason, "reuse");
    for (const [i, r] of results.entries()) {
      if (i === 0) continue;
      const { user, tokens } = logins[i]!;
      assert.equal(r.status, 200);
      assert.equal(r.body.session_state, tokens.session_state);
      const access = claims(r.body.access_token);
      assert.deepEqual(
        [access.sub, access["org_id"], access["sid"]],
        [user.id, user.orgId, tokens.session_state],
        "the session's own user",
      );
      const row = await h.context.sessions.findById(tokens.session_state);
      assert.deepEqual(
        [row?.refreshCount, row?.refreshJti, row?.previousJti, row?.endedAt],
        [1, claims(r.body.refresh_token).jti, claims(tokens.refresh_token).jti, null],
      );
    }
  });

  test("an expired refresh token is 'Token is not active'", async () => {
    const clock = testClock();
    const timed = await buildHarness(getDb(), { clock });
    try {
      const { tokens } = await timed.login();
      clock.advance(1801);
      const res = await timed.refresh(tokens.refresh_token);
      assert.deepEqual([res.status, res.body], [400, grantError("Token is not active")]);
    } finally {
      await timed.app.close();
    }
  });

  test("refreshing slides the idle timeout, but not past the session's maximum lifespan", async () => {
    const clock = testClock();
    const timed = await buildHarness(getDb(), { clock, overrides: { REFRESH_TOKEN_LIFESPAN: 100, SESSION_MAX_LIFESPAN: 250 } });
    try {
      const { tokens } = await timed.login();
      let refresh = tokens.refresh_token;
      for (const expectedRefreshLife of [100, 90, 10]) {
        clock.advance(80); // within the idle timeout each time: t = 80, 160, 240
        const res = await timed.refresh(refresh);
        assert.equal(res.status, 200);
        assert.equal(res.body.refresh_expires_in, expectedRefreshLife);
        refresh = res.body.refresh_token;
      }
      clock.advance(11); // t = 251 > max lifespan 250; the token's own exp (t = 250) has passed too
      const res = await timed.refresh(refresh);
      assert.deepEqual([res.status, res.body], [400, grantError("Token is not active")]);
    } finally {
      await timed.app.close();
    }
  });

  test("an idle session past its timeout is not active, even with a still-valid token (longer lifespan set later)", async () => {
    const clock = testClock();
    const a = await buildHarness(getDb(), { clock, overrides: { REFRESH_TOKEN_LIFESPAN: 1000 } });
    const b = await buildHarness(getDb(), { clock, overrides: { REFRESH_TOKEN_LIFESPAN: 100 } });
    try {
      const { tokens } = await a.login();
      clock.advance(150);
      const res = await b.refresh(tokens.refresh_token);
      assert.deepEqual([res.status, res.body], [400, grantError("Session not active")]);
    } finally {
      await a.app.close();
      await b.app.close();
    }
  });

  test("garbage, tampered and access tokens are 'Invalid refresh token'", async () => {
    const { tokens } = await h.login();
    const [head, payload, sig] = tokens.refresh_token.split(".") as [string, string, string];
    const forged = Buffer.from(JSON.stringify({ ...claims(tokens.refresh_token), sid: crypto.randomUUID() })).toString("base64url");
    for (const bad of ["not-a-jwt", `${head}.${forged}.${sig}`, tokens.access_token, `${head}.${payload}.${sig.slice(0, -4)}AAAA`]) {
      const res = await h.refresh(bad);
      assert.deepEqual([res.status, res.body], [400, grantError("Invalid refresh token")], bad.slice(0, 20));
    }
    // None of that harmed the real session.
    assert.equal((await h.refresh(tokens.refresh_token)).status, 200);
  });

  test("a token of another client is refused with Keycloak's message", async () => {
    const { tokens } = await h.login();
    const res = await h.refresh(tokens.refresh_token, "admin-cli");
    assert.deepEqual([res.status, res.body], [400, grantError("Invalid refresh token. Token client and authorized client don't match")]);
  });

  test("a token of another realm is invalid", async () => {
    const admin = await h.token(
      { grant_type: "password", client_id: "admin-cli", username: "admin", password: h.config.ADMIN_PASSWORD },
      { realm: "master" },
    );
    const res = await h.refresh(admin.body.refresh_token, "admin-cli");
    assert.deepEqual([res.status, res.body], [400, grantError("Invalid refresh token")]);
  });

  test("a missing refresh_token is invalid_request 'No refresh token'", async () => {
    const res = await h.token({ grant_type: "refresh_token", client_id: "hirebridge" });
    assert.deepEqual([res.status, res.body], [400, { error: "invalid_request", error_description: "No refresh token" }]);
  });

  test("after logout, admin logout or deletion of the user the session is not active", async () => {
    const { tokens } = await h.login();
    const out = await h.app.inject({
      method: "POST",
      url: "/realms/hirebridge/protocol/openid-connect/logout",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams({ client_id: "hirebridge", refresh_token: tokens.refresh_token }).toString(),
    });
    assert.equal(out.statusCode, 204);
    assert.deepEqual((await h.refresh(tokens.refresh_token)).body, grantError("Session not active"));

    const second = await h.login();
    assert.equal((await h.admin("POST", `/users/${second.user.id}/logout`)).status, 204);
    assert.deepEqual((await h.refresh(second.tokens.refresh_token)).body, grantError("Session not active"));

    const third = await h.login();
    assert.equal((await h.admin("DELETE", `/users/${third.user.id}`)).status, 204);
    assert.deepEqual((await h.refresh(third.tokens.refresh_token)).body, grantError("Session not active"));
  });

  test("a user disabled after login cannot refresh (disabling ends the user's sessions)", async () => {
    const { user, tokens } = await h.login();
    assert.equal((await h.admin("PUT", `/users/${user.id}`, { enabled: false })).status, 204);
    const res = await h.refresh(tokens.refresh_token);
    assert.deepEqual([res.status, res.body], [400, grantError("Session not active")]);
  });
});
