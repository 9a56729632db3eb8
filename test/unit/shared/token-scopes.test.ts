import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { isServiceAccount, scopeRefusal } from "../../../src/shared/auth/token-scopes.js";
import type { Principal } from "../../../src/shared/auth/token-claims.js";

const principal = (scope: string, claims: Record<string, unknown> = {}, username: string | null = "demo"): Principal => ({
  sub: "s",
  orgId: null,
  username,
  email: null,
  scope,
  claims,
});

describe("token limits (service accounts' scopes)", () => {
  test("a person's token (profile email, or nothing) is not limited on either API", () => {
    for (const scope of ["", "profile email", "openid profile email", "reader recruitingx"]) {
      for (const api of ["recruiting", "proxy", undefined] as const) {
        assert.equal(scopeRefusal(principal(scope), "POST", api), undefined, `${scope} on ${api}`);
      }
    }
  });

  test("read allows GET and HEAD only, on every API", () => {
    assert.equal(scopeRefusal(principal("read"), "GET", "proxy"), undefined);
    assert.equal(scopeRefusal(principal("read"), "head", "recruiting"), undefined);
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
      assert.equal(scopeRefusal(principal("profile read"), method, "recruiting")?.statusCode, 403, method);
    }
  });

  test("recruiting keeps the token off the proxy only", () => {
    assert.equal(scopeRefusal(principal("recruiting"), "POST", "recruiting"), undefined);
    assert.equal(scopeRefusal(principal("recruiting"), "GET", "proxy")?.statusCode, 403);
    assert.equal(scopeRefusal(principal("read recruiting"), "POST", "recruiting")?.statusCode, 403);
  });

  test("a service account is the user Keycloak names service-account-{azp}", () => {
    assert.equal(isServiceAccount(principal("", { azp: "sa-1" }, "service-account-sa-1")), true);
    assert.equal(isServiceAccount(principal("", { azp: "hirebridge" }, "service-account-sa-1")), false);
    assert.equal(isServiceAccount(principal("", { azp: "hirebridge" }, "demo")), false);
    assert.equal(isServiceAccount(principal("", {}, null)), false);
  });
});
