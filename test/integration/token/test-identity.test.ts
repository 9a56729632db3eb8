import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { describeEachDatabase } from "../../helpers/db.js";
import { startTestIdentity, type TestIdentity } from "../../helpers/auth.js";

describeEachDatabase("test identity helper", (getDb) => {
  let identity: TestIdentity;
  before(async () => {
    identity = await startTestIdentity(getDb());
  });
  after(() => identity.close());

  test("login creates a user in a new org and returns tokens the shared verifier accepts", async () => {
    const login = await identity.login();
    assert.match(login.userId, /^[0-9a-f-]{36}$/);
    const principal = await identity.verify(login.accessToken);
    assert.equal(principal.sub, login.userId);
    assert.equal(principal.orgId, login.orgId);
    assert.equal(principal.username, login.username);
    assert.equal(principal.email, `${login.username}@example.test`);
    assert.equal(identity.authUrl, identity.issuer);
    assert.match(identity.issuer, /^http:\/\/127\.0\.0\.1:\d+\/realms\/hirebridge$/);
  });

  test("login with a given org and username puts the user there", async () => {
    const orgId = "0b6f7a54-3a8f-4a36-9d5e-5d2f7c3f8f11";
    const a = await identity.login({ orgId, username: "Alice-Helper" });
    const b = await identity.login({ orgId });
    assert.equal(a.username, "alice-helper");
    assert.equal((await identity.verify(a.accessToken)).orgId, orgId);
    assert.equal((await identity.verify(b.accessToken)).orgId, orgId);
    assert.notEqual(a.userId, b.userId);
  });
});
