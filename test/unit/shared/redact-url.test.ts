import assert from "node:assert/strict";
import { test } from "node:test";
import { redactUrl } from "../../../src/shared/http/redact.js";

const T = "AbCdEfGhIjKlMnOpQrStUvWxYz012345";
const JWT = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl";

test("secrets are redacted from every spelling of a path that holds one, and from credential-like query values", () => {
  const cases: [string, string][] = [
    [`/interview/${T}`, "/interview/<redacted>"],
    [`/%69nterview/${T}`, "/%69nterview/<redacted>"],
    [`//interview/${T}`, "//interview/<redacted>"],
    [`/interview//${T}`, "/interview//<redacted>"],
    [`/Interview/${T}`, "/Interview/<redacted>"],
    [`/./interview/${T}`, "/./interview/<redacted>"],
    [`/foo/../interview/${T}`, "/foo/../interview/<redacted>"],
    [`/interview;x=1/${T}`, "/interview;x=1/<redacted>"],
    [`/interview%2F${T}?a=1`, "/<redacted>?a=1"],
    [`/interview\\${T}`, "/<redacted>"],
    [`/interview/short`, "/interview/<redacted>"],
    ["/Connect/LINK/abc", "/Connect/LINK/<redacted>"],
    ["/v1/connect/integration-by-token/xyz", "/v1/connect/integration-by-token/<redacted>"],
    [`/x/${JWT}`, "/x/<redacted>"],
    [`/x?q=${JWT}`, "/x?q=%3Credacted%3E"],
    [`/x?Authorization=Bearer+${JWT}`, "/x?Authorization=%3Credacted%3E"],
    [`/x?next=${encodeURIComponent(`https://h/interview/${T}`)}`, "/x?next=https%3A%2F%2Fh%2Finterview%2F%3Credacted%3E"],
    ["/x?state=active&token=s3cret", "/x?state=active&token=%3Credacted%3E"],
    ["https://user:pw@h.example/a?code=123&state=x", "https://<redacted>@h.example/a?code=%3Credacted%3E&state=x"],
    ["/x#access_token=abc", "/x#access_token=%3Credacted%3E"],
  ];
  for (const [url, expected] of cases) assert.equal(redactUrl(url), expected, url);
  const names = [
    "token",
    "access_token",
    "authorization",
    "code",
    "refresh_token",
    "password",
    "secret",
    "signature",
    "client_secret",
    "api-key",
    "webhook_secret",
  ];
  const query = names.map((n) => `${n}=v`).join("&");
  assert.equal(redactUrl(`/x?${query}`), `/x?${names.map((n) => `${n}=%3Credacted%3E`).join("&")}`);
});

test("ids, route words and ordinary query values are left as they are", () => {
  for (const url of [
    "/api/v1/org/6d3f1e2a-9b4c-4f7e-8a1d-2c5b7e9f0a13/positions/0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b/candidates/",
    "/api/v1/org/x/positions/y/candidates/z/interview/correction",
    "/api/v1/webhooks/upstream/inline-assessment-order-received",
    "/api/v1/integrations/greenhouse:8d1hHTHfP7HgDmHQiZpXZKJ4/jobs",
    "/.well-known/openid-configuration",
    "/api/v1/ats/jobs?page_size=50&cursor=abc&country_code=DE",
    "/api/v1/org_id",
  ]) {
    assert.equal(redactUrl(url), url);
  }
});
