import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { describeEachDatabase } from "../../helpers/db.js";
import { buildHarness, type Harness } from "./harness.js";

const NOT_ACTIVE = { error: "invalid_grant", error_description: "Session not active" };

describeEachDatabase("sessions end with the credentials that made them", (getDb) => {
  let h: Harness;
  let kept: Harness;
  let adminToken: string;
  before(async () => {
    h = await buildHarness(getDb());
    // Same storage, PASSWORD_RESET_ENDS_SESSIONS off: the Keycloak-like behaviour on request.
    kept = await buildHarness(getDb(), { overrides: { PASSWORD_RESET_ENDS_SESSIONS: "false" } });
    adminToken = await h.adminToken();
  });
  after(async () => {
    await h.app.close();
    await kept.app.close();
  });

  const admin = (method: "GET" | "POST" | "PUT" | "DELETE", path: string, body?: unknown, on = h) =>
    on.admin(method, path, body, adminToken);
  const sessionRow = async (sid: string) =>
    (await getDb().query<{ ended_reason: string | null }>("select ended_reason from token_sessions where id = $1", [sid]))[0];
  const sidOf = (refreshToken: string) => JSON.parse(Buffer.from(refreshToken.split(".")[1]!, "base64url").toString()).sid as string;

  test("an admin password reset ends every session: old refresh tokens answer Session not active", async () => {
    const { user, tokens } = await h.login();
    const second = await h.password(user.username, user.password);
    // A refresh before the reset works (the session is live and rotates).
    const rotated = await h.refresh(tokens.refresh_token);
    assert.equal(rotated.status, 200);
    assert.equal(
      (await admin("PUT", `/users/${user.id}/reset-password`, { type: "password", value: "fresh-pass-1", temporary: false })).status,
      204,
    );
    for (const token of [rotated.body.refresh_token, second.body.refresh_token]) {
      const res = await h.refresh(token);
      assert.deepEqual([res.status, res.body], [400, NOT_ACTIVE]);
    }
    assert.equal((await sessionRow(sidOf(tokens.refresh_token)))?.ended_reason, "password_reset");
    // The new password logs in to a new, working session.
    const fresh = await h.password(user.username, "fresh-pass-1");
    assert.equal(fresh.status, 200);
    assert.equal((await h.refresh(fresh.body.refresh_token)).status, 200);
  });

  test("a password set by a user update (credentials in PUT /users/{id}) ends the sessions too", async () => {
    const { user, tokens } = await h.login();
    const res = await admin("PUT", `/users/${user.id}`, { credentials: [{ type: "password", value: "fresh-pass-2", temporary: false }] });
    assert.equal(res.status, 204);
    assert.deepEqual((await h.refresh(tokens.refresh_token)).body, NOT_ACTIVE);
  });

  test("with PASSWORD_RESET_ENDS_SESSIONS=false a reset leaves the sessions alone", async () => {
    const { user, tokens } = await kept.login();
    assert.equal((await admin("PUT", `/users/${user.id}/reset-password`, { type: "password", value: "fresh-pass-3" }, kept)).status, 204);
    assert.equal((await kept.refresh(tokens.refresh_token)).status, 200);
  });

  test("disabling a user ends its sessions; enabling it again does not bring them back", async () => {
    const { user, tokens } = await h.login();
    assert.equal((await admin("PUT", `/users/${user.id}`, { enabled: false })).status, 204);
    assert.equal((await h.refresh(tokens.refresh_token)).status, 400);
    assert.equal((await sessionRow(sidOf(tokens.refresh_token)))?.ended_reason, "disabled");
    assert.equal((await admin("PUT", `/users/${user.id}`, { enabled: true })).status, 204);
    const res = await h.refresh(tokens.refresh_token);
    assert.deepEqual([res.status, res.body], [400, NOT_ACTIVE]);
    // The user can log in again, with a new session.
    assert.equal((await h.password(user.username, user.password)).status, 200);
  });

  test("an update that leaves enabled and the password alone keeps the sessions", async () => {
    const { user, tokens } = await h.login();
    assert.equal((await admin("PUT", `/users/${user.id}`, { firstName: "Renamed", enabled: true })).status, 204);
    assert.equal((await h.refresh(tokens.refresh_token)).status, 200);
  });

  test("deleting a user ends its sessions (their rows go with the user)", async () => {
    const { user, tokens } = await h.login();
    assert.equal((await admin("DELETE", `/users/${user.id}`)).status, 204);
    assert.deepEqual((await h.refresh(tokens.refresh_token)).body, NOT_ACTIVE);
    assert.equal(await sessionRow(sidOf(tokens.refresh_token)), undefined);
  });
});
