import assert from "node:assert/strict";
import { test } from "node:test";
import { ConfigError, ConfigSchema, loadConfig, serviceUrls } from "../../../src/shared/config.js";

test("defaults give the run contract", () => {
  const config = loadConfig(ConfigSchema, {});
  assert.equal(config.HOST, "127.0.0.1");
  assert.equal(config.PROXY_PORT, 8000);
  assert.equal(config.API_PORT, 8001);
  assert.equal(config.AUTH_PORT, 8080);
  assert.equal(config.SANDBOX_PORT, 8090);
  assert.equal(config.UPSTREAM_API_KEY, "sandbox-api-key");
  const urls = serviceUrls(config);
  assert.equal(urls.authUrl, "http://127.0.0.1:8080/realms/hirebridge");
  assert.equal(urls.sandbox, "http://127.0.0.1:8090/v1");
  assert.equal(urls.upstream, urls.sandbox);
  assert.ok(Object.isFrozen(config));
});

test("strings are converted and empty strings mean unset", () => {
  const config = loadConfig(ConfigSchema, { PROXY_PORT: "9000", DATABASE_URL: "" });
  assert.equal(config.PROXY_PORT, 9000);
  assert.equal(config.DATABASE_URL, undefined);
});

test("every bad variable is listed at once, secrets redacted", () => {
  assert.throws(
    () => loadConfig(ConfigSchema, { PROXY_PORT: "eighty", API_PORT: "70000", DATABASE_URL: "mysql://u:pw@h/db" }),
    (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.equal(err.issues.length, 3);
      assert.match(err.message, /PROXY_PORT/);
      assert.match(err.message, /API_PORT/);
      assert.match(err.message, /DATABASE_URL/);
      assert.doesNotMatch(err.message, /pw@h/);
      return true;
    },
  );
});

test("PGLITE_WASM_COMPILER is optimizing unless set to baseline; anything else is refused", () => {
  assert.equal(loadConfig(ConfigSchema, {}).PGLITE_WASM_COMPILER, "optimizing");
  assert.equal(loadConfig(ConfigSchema, { PGLITE_WASM_COMPILER: "baseline" }).PGLITE_WASM_COMPILER, "baseline");
  assert.throws(
    () => loadConfig(ConfigSchema, { PGLITE_WASM_COMPILER: "liftoff" }),
    (err: unknown) => err instanceof ConfigError && /PGLITE_WASM_COMPILER/.test(err.message),
  );
});
