import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { buildConsoleApp } from "../../../src/services/console/app.js";
import { corsOriginsOf } from "../../../src/shared/config.js";
import type { App } from "../../../src/shared/http/create-app.js";
import { silentLogger, testConfig } from "../../helpers/config.js";

/** The console service over a small stand-in build (the real build is exercised by the end-to-end test). */
describe("console service", () => {
  let dist: string;
  let app: App;
  const ports = { AUTH_PORT: 16180, API_PORT: 16101, PROXY_PORT: 16100, SANDBOX_PORT: 16190, CONSOLE_PORT: 16102 };
  before(async () => {
    dist = await mkdtemp(join(tmpdir(), "hirebridge-console-dist-"));
    await mkdir(join(dist, "assets"));
    await writeFile(join(dist, "index.html"), '<!doctype html><script type="module" src="/assets/console-ABC123.js"></script>');
    await writeFile(join(dist, "assets", "console-ABC123.js"), "console.log('hi')");
    await writeFile(join(dist, "assets", "console-DEF456.css"), "body{}");
    app = await buildConsoleApp({ config: testConfig(ports), logger: silentLogger(), distDir: dist });
  });
  after(async () => {
    await app?.close();
    await rm(dist, { recursive: true, force: true });
  });

  test("every page path answers the app under a strict CSP, revalidated on each load", async () => {
    for (const url of ["/", "/integrations/lever%3Aabc", "/positions/1", "/auth/callback?code=x&state=y"]) {
      const res = await app.inject({ method: "GET", url });
      assert.equal(res.statusCode, 200, url);
      assert.match(res.body, /console-ABC123\.js/);
      assert.equal(res.headers["content-type"], "text/html; charset=utf-8");
      assert.equal(res.headers["cache-control"], "no-cache");
      assert.equal(res.headers["x-frame-options"], "DENY");
      const csp = String(res.headers["content-security-policy"]);
      assert.equal(
        csp,
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self' http://127.0.0.1:16180 http://127.0.0.1:16101 http://127.0.0.1:16100; frame-src http://127.0.0.1:16190; form-action 'none'; base-uri 'none'; frame-ancestors 'none'; object-src 'none'",
      );
    }
    const again = await app.inject({
      method: "GET",
      url: "/",
      headers: { "if-none-match": String((await app.inject({ method: "GET", url: "/" })).headers.etag) },
    });
    assert.equal(again.statusCode, 304);
  });

  test("hashed assets are cached for a year; unknown ones are 404, never the page", async () => {
    const js = await app.inject({ method: "GET", url: "/assets/console-ABC123.js" });
    assert.equal(js.statusCode, 200);
    assert.equal(js.body, "console.log('hi')");
    assert.equal(js.headers["content-type"], "text/javascript; charset=utf-8");
    assert.equal(js.headers["cache-control"], "public, max-age=31536000, immutable");
    const css = await app.inject({ method: "GET", url: "/assets/console-DEF456.css" });
    assert.equal(css.headers["content-type"], "text/css; charset=utf-8");
    const missing = await app.inject({ method: "GET", url: "/assets/console-OLD999.js" });
    assert.equal(missing.statusCode, 404);
    assert.deepEqual(missing.json(), { detail: "Not Found" });
    const post = await app.inject({ method: "POST", url: "/" });
    assert.equal(post.statusCode, 404);
  });

  test("/config.json names the token service, the console's client and redirect URI, and the APIs", async () => {
    const res = await app.inject({ method: "GET", url: "/config.json" });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), {
      authUrl: "http://127.0.0.1:16180/realms/hirebridge",
      clientId: "hirebridge-console",
      redirectUri: "http://127.0.0.1:16102/auth/callback",
      apiUrl: "http://127.0.0.1:16101/api/v1",
      proxyUrl: "http://127.0.0.1:16100/api/v1",
    });
    assert.equal((await app.inject({ method: "GET", url: "/healthz" })).statusCode, 200);
  });

  test("a real upstream's connection flow may be framed from any https origin; AUTH_ISSUER is where the console signs in", async () => {
    const other = await buildConsoleApp({
      config: testConfig({ ...ports, UPSTREAM_BASE_URL: "https://api.kombo.dev/v1", AUTH_ISSUER: "https://id.example.com/realms/acme" }),
      logger: silentLogger(),
      distDir: dist,
    });
    try {
      const csp = String((await other.inject({ method: "GET", url: "/" })).headers["content-security-policy"]);
      assert.match(csp, /frame-src https:;/);
      assert.match(csp, /connect-src 'self' https:\/\/id\.example\.com /);
      assert.equal((await other.inject({ method: "GET", url: "/config.json" })).json().authUrl, "https://id.example.com/realms/acme");
    } finally {
      await other.close();
    }
  });

  test("a missing build is a clear start-up error", async () => {
    await assert.rejects(
      buildConsoleApp({ config: testConfig(ports), logger: silentLogger(), distDir: join(dist, "nope") }),
      /The console is not built .*npm run build:console/,
    );
  });

  test("the APIs always allow the console's origin: added to a CORS_ORIGINS list, implied by *", () => {
    assert.equal(
      corsOriginsOf(testConfig({ ...ports, CORS_ORIGINS: "https://app.example.com" })),
      "https://app.example.com,http://127.0.0.1:16102",
    );
    assert.equal(corsOriginsOf(testConfig({ ...ports, CORS_ORIGINS: "http://127.0.0.1:16102" })), "http://127.0.0.1:16102");
    assert.equal(corsOriginsOf(testConfig(ports)), "*");
  });
});
