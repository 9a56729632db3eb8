import assert from "node:assert/strict";
import { test } from "node:test";
import { grantedScope } from "../../../src/services/token/grants/issue-tokens.js";
import { KeycloakError } from "../../../src/services/token/token-errors.js";

test("the default client scopes are always granted; openid is added when asked for", () => {
  assert.equal(grantedScope(undefined), "profile email");
  assert.equal(grantedScope(""), "profile email");
  assert.equal(grantedScope("email"), "profile email");
  assert.equal(grantedScope("openid"), "openid profile email");
  assert.equal(grantedScope("profile  openid"), "openid profile email");
});

test("a scope the realm does not have is invalid_scope", () => {
  assert.throws(
    () => grantedScope("openid admin"),
    (err: unknown) =>
      err instanceof KeycloakError &&
      err.statusCode === 400 &&
      JSON.stringify(err.body) === JSON.stringify({ error: "invalid_scope", error_description: "Invalid scopes: openid admin" }),
  );
});
