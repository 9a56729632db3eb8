import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { buildRecruitingApp } from "../../../src/services/recruiting/app.js";
import { buildProxyWithSync } from "../../../src/runtime/wiring.js";
import type { App } from "../../../src/shared/http/create-app.js";
import { silentLogger, testConfig } from "../../helpers/config.js";
import { freshDatabase } from "../../helpers/db.js";

type Operation = { description?: string; security?: Record<string, string[]>[] };
type Document = {
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, { $ref?: string; properties?: Record<string, unknown> }>;
    securitySchemes: Record<string, { type: string; flows?: Record<string, { tokenUrl: string }> }>;
  };
};

/** The interactive docs of both APIs: every operation described, the error shapes listed, Authorize wired to the token service. */
const database = await freshDatabase("pglite");
const config = testConfig({ AUTH_PORT: 18080, AUTH_CLIENT_ID: "hirebridge" });
const verify = async () => {
  throw new Error("no tokens in this test");
};
let apps: [string, App][];
before(async () => {
  apps = [
    ["recruiting API", await buildRecruitingApp({ config, database, logger: silentLogger(), verify })],
    // The proxy as it serves: with the sync module's routes on its port.
    ["proxy", await buildProxyWithSync({ config, database, logger: silentLogger(), verify, workers: false })],
  ];
});
after(async () => {
  for (const [, app] of apps) await app.close();
  await database.dispose();
});

test("every operation has a description, and the error bodies are listed under components", async () => {
  for (const [name, app] of apps) {
    const doc = (await app.inject({ url: "/api/v1/openapi.json" })).json() as Document;
    const operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => [`${method.toUpperCase()} ${path}`, op] as const),
    );
    assert.ok(operations.length >= 12, name);
    for (const [what, op] of operations) assert.ok(op.description && op.description.length > 20, `${name}: ${what} has no description`);
    for (const schema of ["ErrorDetail", "ValidationError", "HTTPValidationError"])
      assert.ok(doc.components.schemas[schema], `${name}: components.schemas.${schema}`);
    assert.deepEqual(doc.components.schemas["ErrorDetail"]!.properties, { detail: { type: "string" } });
  }
});

test("Authorize logs in at the token service: an OAuth2 password flow beside the bearer scheme, on every protected operation", async () => {
  for (const [name, app] of apps) {
    const doc = (await app.inject({ url: "/api/v1/openapi.json" })).json() as Document;
    const oauth = doc.components.securitySchemes["oauth"]!;
    assert.equal(oauth.type, "oauth2");
    assert.equal(oauth.flows!["password"]!.tokenUrl, "http://127.0.0.1:18080/realms/hirebridge/protocol/openid-connect/token", name);
    const protectedOps = Object.values(doc.paths)
      .flatMap((ops) => Object.values(ops))
      .filter((op) => op.security?.some((s) => "bearer" in s));
    assert.ok(protectedOps.length > 0);
    for (const op of protectedOps) assert.deepEqual(op.security, [{ bearer: [] }, { oauth: [] }]);

    const init = await app.inject({ url: "/docs/static/swagger-initializer.js" });
    assert.equal(init.statusCode, 200);
    assert.match(init.body, /"clientId":\s*"hirebridge"/);
    const page = await app.inject({ url: "/docs/static/index.html" });
    const csp = String(page.headers["content-security-policy"]);
    assert.match(csp, /connect-src 'self' http:\/\/127\.0\.0\.1:18080;/, "the page may call the token service");
    assert.doesNotMatch(csp, /upgrade-insecure-requests/, "a local http token service is not upgraded to https");
  }
});

test("every operation that wants a token declares it, and every one that declares it wants one (the route table of both documents)", async () => {
  for (const [name, app] of apps) {
    const doc = (await app.inject({ url: "/api/v1/openapi.json" })).json() as Document;
    let walked = 0;
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        // Any value for a path parameter: authentication comes before validation and tenancy.
        const url = path.replace(/\{[^}]+\}/g, "x");
        const res = await app.inject({ method: method.toUpperCase() as "GET", url });
        const wantsToken = res.statusCode === 401 && /^Bearer/.test(String(res.headers["www-authenticate"]));
        const declares = op.security?.some((s) => "bearer" in s) ?? false;
        assert.equal(
          declares,
          wantsToken,
          `${name}: ${method.toUpperCase()} ${path} ${wantsToken ? "wants a token but declares no security" : `declares security but answers ${res.statusCode}`}`,
        );
        walked++;
      }
    }
    assert.ok(walked >= 12, `${name}: ${walked} operations`);
  }
  const proxy = (await apps[1]![1].inject({ url: "/api/v1/openapi.json" })).json() as Document;
  // The quickstart's own examples, which declared none before.
  for (const [method, path] of [
    ["get", "/integrations"],
    ["get", "/integrations/{integration_id}/syncs"],
    ["post", "/webhooks/sync-all"],
  ] as const) {
    assert.deepEqual(proxy.paths[`/api/v1${path}`]?.[method]?.security, [{ bearer: [] }, { oauth: [] }], `${method} ${path}`);
  }
});
