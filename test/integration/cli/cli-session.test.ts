import assert from "node:assert/strict";
import { stat, writeFile } from "node:fs/promises";
import { after, before, describe, test } from "node:test";
import { startEmbeddedStack, type EmbeddedStack } from "../client/embedded-stack.js";
import { Cli, oneLineError } from "./cli-harness.js";

/**
 * login, the session file, refresh write-back, whoami, logout, and user administration through the
 * Keycloak admin API: the real bin against the embedded stack.
 */
describe("CLI: login, the session, admin users", () => {
  let env: EmbeddedStack;
  let cli: Cli;
  before(async () => {
    env = await startEmbeddedStack();
    cli = await Cli.create(env);
  });
  after(async () => {
    await cli.dispose();
    await env.close();
  });

  test("without a session every command says to log in, exit 3", async () => {
    const res = await cli.run(["positions", "list"]);
    assert.equal(res.code, 3);
    assert.equal(
      oneLineError(res),
      "hirebridge: Not logged in: run `hirebridge login` (or set HIREBRIDGE_USERNAME and HIREBRIDGE_PASSWORD)",
    );
  });

  test("a wrong password is one line, exit 3, and the password appears nowhere", async () => {
    const res = await cli.run(["login", "-u", "demo", "--password-stdin"], { stdin: "wrong-secret-123\n" });
    assert.equal(res.code, 3);
    assert.equal(oneLineError(res), "hirebridge: Login failed (invalid_grant: Invalid user credentials)");
    assert.ok(!`${res.stdout}${res.stderr}`.includes("wrong-secret-123"));
  });

  test("no password and no terminal to ask on: exit 2 rather than a hang", async () => {
    const res = await cli.run(["login", "-u", "demo"]);
    assert.equal(res.code, 2);
    assert.match(oneLineError(res), /Password for demo is needed: set it in the environment or pass it on stdin/);
  });

  test("login --password-stdin keeps the session in XDG_CONFIG_HOME with mode 0600, and no password", async () => {
    const res = await cli.run(["--json", "login", "-u", "demo", "--password-stdin"], { stdin: `${env.demo.password}\n` });
    assert.equal(res.code, 0, res.stderr);
    const out = JSON.parse(res.stdout) as Record<string, unknown>;
    assert.equal(out["username"], "demo");
    assert.equal(out["org_id"], env.demo.orgId);
    assert.equal(out["session_file"], cli.sessionFile);
    assert.equal(await cli.sessionMode(), 0o600);
    const stored = await cli.session();
    assert.equal(stored.username, "demo");
    assert.equal(stored.authUrl, env.authUrl);
    assert.equal(stored.orgId, env.demo.orgId);
    assert.ok(stored.session?.refreshToken);
    assert.ok(!JSON.stringify(stored).includes(env.demo.password));
    assert.ok(!res.stdout.includes(stored.session.accessToken), "tokens are never printed");
  });

  test("login with HIREBRIDGE_PASSWORD prints a human confirmation", async () => {
    const res = await cli.run(["login", "--username", "demo"], { env: { HIREBRIDGE_PASSWORD: env.demo.password } });
    assert.equal(res.code, 0, res.stderr);
    assert.equal(
      res.stdout,
      `Logged in to ${env.authUrl} as demo (organisation ${env.demo.orgId}).\nSession saved in ${cli.sessionFile}.\n`,
    );
  });

  test("whoami shows the user, organisation and endpoints (table and --json)", async () => {
    const table = await cli.run(["whoami"]);
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /^username\s+demo$/m);
    assert.match(table.stdout, new RegExp(`^org_id\\s+${env.demo.orgId}$`, "m"));
    const json = await cli.json<Record<string, string>>(["whoami"]);
    assert.deepEqual(
      {
        username: json["username"],
        org_id: json["org_id"],
        auth_url: json["auth_url"],
        api_url: json["api_url"],
        proxy_url: json["proxy_url"],
      },
      { username: "demo", org_id: env.demo.orgId, auth_url: env.authUrl, api_url: env.apiUrl, proxy_url: env.proxyUrl },
    );
  });

  test("a due refresh happens as in the SDK and the rotated tokens are written back (still 0600)", async () => {
    const before = await cli.session();
    // Make the saved access token look due: the next command must refresh, not log in again.
    await writeFile(cli.sessionFile, JSON.stringify({ ...before, session: { ...before.session!, accessExpiresAt: 0 } }), { mode: 0o600 });
    const res = await cli.run(["positions", "list"]);
    assert.equal(res.code, 0, res.stderr);
    const after = await cli.session();
    assert.notEqual(after.session!.refreshToken, before.session!.refreshToken, "the rotated refresh token was saved");
    assert.notEqual(after.session!.accessToken, before.session!.accessToken);
    assert.equal(await cli.sessionMode(), 0o600);
    // Only the newest refresh token is live (the old one was spent): refreshing again from the
    // saved file must work, which it does only if the file holds the rotated token.
    await writeFile(cli.sessionFile, JSON.stringify({ ...after, session: { ...after.session!, accessExpiresAt: 0 } }), { mode: 0o600 });
    const again = await cli.run(["positions", "list"]);
    assert.equal(again.code, 0, again.stderr);
    assert.notEqual((await cli.session()).session!.refreshToken, after.session!.refreshToken);
  });

  test("commands running at once with a due token take turns: one refresh, the session survives", async () => {
    const before = await cli.session();
    await writeFile(cli.sessionFile, JSON.stringify({ ...before, session: { ...before.session!, accessExpiresAt: 0 } }), { mode: 0o600 });
    // Without the lock each would refresh with the same token: a reuse, which ends the session.
    const results = await Promise.all(Array.from({ length: 4 }, () => cli.run(["--json", "positions", "list"])));
    for (const res of results) assert.equal(res.code, 0, res.stderr);
    const after = await cli.session();
    assert.notEqual(after.session!.refreshToken, before.session!.refreshToken);
    await assert.rejects(stat(`${cli.sessionFile}.lock`), /ENOENT/, "the lock is released");
    await writeFile(cli.sessionFile, JSON.stringify({ ...after, session: { ...after.session!, accessExpiresAt: 0 } }), { mode: 0o600 });
    const again = await cli.run(["positions", "list"]);
    assert.equal(again.code, 0, `the saved refresh token is still live: ${again.stderr}`);
  });

  test("a session ended at the identity provider: exit 3 with the login hint", async () => {
    const ended = await cli.run(["admin", "users", "logout", "demo"], { env: { ADMIN_PASSWORD: env.adminPassword } });
    assert.equal(ended.code, 0, ended.stderr);
    assert.equal(ended.stdout, "Sessions of demo ended.\n");
    const stored = await cli.session();
    await writeFile(cli.sessionFile, JSON.stringify({ ...stored, session: { ...stored.session!, accessExpiresAt: 0 } }), { mode: 0o600 });
    const res = await cli.run(["--json", "positions", "list"]);
    assert.equal(res.code, 3);
    assert.equal(
      oneLineError(res),
      "hirebridge: The session has ended and no credentials were given to log in again: run `hirebridge login` (or set HIREBRIDGE_USERNAME and HIREBRIDGE_PASSWORD)",
    );
    // HIREBRIDGE_USERNAME/PASSWORD let a script carry on without `login`.
    const scripted = await cli.run(["--json", "positions", "list"], {
      env: { HIREBRIDGE_USERNAME: "demo", HIREBRIDGE_PASSWORD: env.demo.password },
    });
    assert.equal(scripted.code, 0, scripted.stderr);
    assert.ok(Array.isArray(JSON.parse(scripted.stdout)));
  });

  test("logout ends the session at the identity provider and deletes the file", async () => {
    await cli.login("demo", env.demo.password);
    const { session } = await cli.session();
    const res = await cli.run(["logout"]);
    assert.equal(res.code, 0, res.stderr);
    assert.equal(res.stdout, "Logged out.\n");
    await assert.rejects(cli.session(), /ENOENT/);
    const refresh = await fetch(`${env.authUrl}/protocol/openid-connect/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "refresh_token", client_id: "hirebridge", refresh_token: session!.refreshToken }),
    });
    assert.equal(refresh.status, 400);
    assert.equal((await cli.run(["logout"])).stdout, "Not logged in.\n");
  });

  test("admin: no admin password and no terminal is exit 2; a wrong one is exit 3", async () => {
    const none = await cli.run(["admin", "users", "list"]);
    assert.equal(none.code, 2);
    assert.equal(oneLineError(none), "hirebridge: Admin password for admin is needed: set it in the environment or pass it on stdin");
    const wrong = await cli.run(["admin", "users", "list"], { env: { ADMIN_PASSWORD: "not-it" } });
    assert.equal(wrong.code, 3);
    assert.equal(oneLineError(wrong), "hirebridge: Login failed (invalid_grant: Invalid user credentials)");
  });

  test("admin users create → list → show → reset-password → logout → delete, and the user can log in", async () => {
    const admin = { ADMIN_PASSWORD: env.adminPassword };
    const org = "3b0f6c52-2d0e-4a57-9d4b-5f1e8c7a9d20";
    const created = await cli.json<{ id: string; username: string; attributes: Record<string, string[]> }>(
      ["admin", "users", "create", "lin", "--org", org, "--email", "lin@example.com", "--first-name", "Lin", "--password-stdin"],
      { env: admin, stdin: "first-pass-123\n" },
    );
    assert.equal(created.username, "lin");
    assert.deepEqual(created.attributes["org_id"], [org]);

    const other = await Cli.create(env);
    try {
      await other.login("lin", "first-pass-123");
      assert.equal((await other.json<{ org_id: string }>(["whoami"])).org_id, org, "the new user's tokens carry the organisation");

      const list = await cli.run(["admin", "users", "list", "--username", "lin"], { env: admin });
      assert.equal(list.code, 0, list.stderr);
      assert.match(list.stdout, /^ID\s+USERNAME\s+EMAIL\s+ORG\s+ENABLED$/m);
      assert.match(list.stdout, new RegExp(`^${created.id}\\s+lin\\s+lin@example.com\\s+${org}\\s+yes$`, "m"));
      const shown = await cli.run(["admin", "users", "show", "lin"], { env: admin });
      assert.match(shown.stdout, new RegExp(`^id\\s+${created.id}$`, "m"));
      assert.match(shown.stdout, /^first name\s+Lin$/m);
      assert.equal((await cli.json<{ username: string }>(["admin", "users", "show", created.id], { env: admin })).username, "lin");

      const dup = await cli.run(["admin", "users", "create", "lin", "--org", org, "--password-stdin"], {
        env: admin,
        stdin: "x-pass-12345\n",
      });
      assert.equal(dup.code, 5);
      assert.match(oneLineError(dup), /failed with 409: User exists with same username$/);

      const reset = await cli.run(["admin", "users", "reset-password", "lin", "--password-stdin"], {
        env: admin,
        stdin: "second-pass-456\n",
      });
      assert.equal(reset.code, 0, reset.stderr);
      assert.equal(reset.stdout, "Password of lin changed.\n");
      assert.equal((await other.run(["login", "-u", "lin", "--password-stdin"], { stdin: "first-pass-123\n" })).code, 3);
      await other.login("lin", "second-pass-456");

      const out = await cli.run(["admin", "users", "logout", "lin"], { env: admin });
      assert.equal(out.stdout, "Sessions of lin ended.\n");
      const stored = await other.session();
      await writeFile(other.sessionFile, JSON.stringify({ ...stored, session: { ...stored.session!, accessExpiresAt: 0 } }), {
        mode: 0o600,
      });
      assert.equal((await other.run(["whoami"])).code, 3, "the user's session was ended");

      const declined = await cli.run(["admin", "users", "delete", "lin"], { env: admin, stdin: "no\n" });
      assert.equal(declined.code, 1);
      const deleted = await cli.run(["admin", "users", "delete", "lin", "--yes"], { env: admin });
      assert.equal(deleted.code, 0, deleted.stderr);
      assert.equal(deleted.stdout, "Deleted user lin.\n");
      const gone = await cli.run(["admin", "users", "show", "lin"], { env: admin });
      assert.equal(gone.code, 4);
      assert.equal(oneLineError(gone), 'hirebridge: No user "lin"');
    } finally {
      await other.dispose();
    }
  });
});
