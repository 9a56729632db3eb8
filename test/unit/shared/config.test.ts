import assert from "node:assert/strict";
import { test } from "node:test";
import { ConfigError, loadConfig, serviceUrls } from "../../../src/shared/config.js";
import { serve } from "../../../src/cli/serve.js";
import { ConfigSchema, loadServiceConfig } from "../../../src/runtime/config.js";
import { SERVICE_ORDER } from "../../../src/shared/service.js";

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

test("each service parses the shared base and its own slices; serve all parses every variable, with the same defaults", () => {
  const bad = { SYNC_PAGE_SIZE: "9999", PASSWORD_HASH_PASSES: "0", SANDBOX_FAULT_RATE: "2", HOST: "" };
  // The token service reads none of the sync engine's or the sandbox's variables...
  const token = loadServiceConfig(["token"], { SYNC_PAGE_SIZE: "9999", SANDBOX_FAULT_RATE: "2" });
  assert.equal(token.ACCESS_TOKEN_LIFESPAN, 1800);
  assert.equal((token as Record<string, unknown>)["SYNC_PAGE_SIZE"], undefined);
  // ...the proxy hosts the sync engine, so it refuses a bad SYNC_PAGE_SIZE.
  assert.throws(
    () => loadServiceConfig(["proxy"], bad),
    (err: unknown) => err instanceof ConfigError && err.issues.length === 1 && /SYNC_PAGE_SIZE/.test(err.message),
  );
  // serve all: every bad variable at once.
  assert.throws(
    () => loadServiceConfig(SERVICE_ORDER, bad),
    (err: unknown) =>
      err instanceof ConfigError &&
      err.issues.length === 3 &&
      /SYNC_PAGE_SIZE/.test(err.message) &&
      /PASSWORD_HASH_PASSES/.test(err.message),
  );
  assert.deepEqual(loadServiceConfig(SERVICE_ORDER, {}), loadConfig(ConfigSchema, {}));
  for (const name of SERVICE_ORDER) {
    const own = loadServiceConfig([name], {}) as Record<string, unknown>;
    const all = loadConfig(ConfigSchema, {}) as Record<string, unknown>;
    for (const [key, value] of Object.entries(own)) assert.equal(value, all[key], `${name}: ${key} has the same default`);
  }
});

test("`serve` reports every bad variable of the services asked for and exits 78 (EX_CONFIG), starting nothing", async (t) => {
  const written: string[] = [];
  t.mock.method(process.stderr, "write", (chunk: string) => {
    written.push(chunk);
    return true;
  });
  assert.equal(await serve(["token", "sandbox"], { AUTH_PORT: "eighty", SANDBOX_SEED: "x", SYNC_PAGE_SIZE: "0" }), 78);
  t.mock.restoreAll();
  const text = written.join("");
  assert.match(text, /Invalid configuration/);
  assert.match(text, /AUTH_PORT/);
  assert.match(text, /SANDBOX_SEED/);
  assert.doesNotMatch(text, /SYNC_PAGE_SIZE/, "not a variable of the token service or the sandbox");
});
