import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Hirebridge } from "../../../src/client/index.js";
import { ConfigurationError, HirebridgeError } from "../../../src/client/core/errors.js";
import { decodeJwtPayload } from "../../../src/client/core/jwt.js";
import { paginate } from "../../../src/client/core/paginate.js";
import { backoffDelay, DEFAULT_RETRY_POLICY, isRetryableStatus } from "../../../src/client/core/retry.js";
import { parseRetryAfter } from "../../../src/contracts/retry-after.js";
import { buildUrl, isLoopbackHost, path, requireSecureBaseUrl } from "../../../src/client/core/url.js";
import { jwt } from "./fakes.js";

describe("base URLs: HTTPS except loopback", () => {
  test("https anywhere and http on loopback are accepted, trailing slashes dropped", () => {
    assert.equal(requireSecureBaseUrl("https://id.example.com/realms/hb/", "authUrl"), "https://id.example.com/realms/hb");
    for (const url of ["http://127.0.0.1:8080/realms/hb", "http://localhost:8080", "http://[::1]:8080", "http://api.localhost"]) {
      assert.doesNotThrow(() => requireSecureBaseUrl(url, "authUrl"), url);
    }
  });

  test("plain http to another host, credentials in the URL and other schemes are refused", () => {
    for (const url of ["http://id.example.com/realms/hb", "http://10.0.0.5:8080", "ftp://x", "https://u:p@id.example.com", "nope"]) {
      assert.throws(() => requireSecureBaseUrl(url, "authUrl"), ConfigurationError, url);
    }
    assert.throws(
      () => new Hirebridge({ authUrl: "http://id.example.com/realms/hb" }),
      /authUrl must use https:\/\/ \(plain http is only allowed for loopback hosts\)/,
    );
    assert.throws(() => new Hirebridge({ authUrl: "https://id.example.com/realms/hb", apiUrl: "http://api.example.com" }), /apiUrl/);
  });

  test("loopback detection", () => {
    assert.ok(isLoopbackHost("127.10.0.1") && isLoopbackHost("LOCALHOST") && isLoopbackHost("[::1]"));
    assert.ok(!isLoopbackHost("127.0.0.1.nip.io") && !isLoopbackHost("localhost.example.com") && !isLoopbackHost("::2"));
  });

  test("path segments are percent-encoded; absent query values are left out; arrays are comma lists", () => {
    assert.equal(path`/integrations/${"greenhouse:a/b?c"}/relink`, "/integrations/greenhouse%3Aa%2Fb%3Fc/relink");
    assert.equal(buildUrl("https://x/api", "/p", { a: undefined, b: null, c: false, d: ["1", "2"] }), "https://x/api/p?c=false&d=1%2C2");
  });
});

describe("retry policy", () => {
  test("Retry-After in seconds, as an HTTP date, and garbage", () => {
    const now = Date.UTC(2026, 0, 1, 12);
    assert.equal(parseRetryAfter("5", now), 5000);
    assert.equal(parseRetryAfter(" 1.5 ", now), 1500);
    assert.equal(parseRetryAfter(new Date(now + 30_000).toUTCString(), now), 30_000);
    assert.equal(parseRetryAfter(new Date(now - 30_000).toUTCString(), now), 0);
    assert.equal(parseRetryAfter("soon", now), null);
    assert.equal(parseRetryAfter(null, now), null);
  });

  test("which statuses repeat", () => {
    assert.ok(isRetryableStatus(429, false) && isRetryableStatus(503, true) && isRetryableStatus(408, true));
    assert.ok(!isRetryableStatus(503, false) && !isRetryableStatus(501, true) && !isRetryableStatus(404, true));
  });

  test("back-off doubles, is capped and never zero", () => {
    const p = DEFAULT_RETRY_POLICY;
    assert.equal(
      backoffDelay(0, p, () => 1),
      500,
    );
    assert.equal(
      backoffDelay(3, p, () => 1),
      4000,
    );
    assert.equal(
      backoffDelay(10, p, () => 1),
      8000,
    );
    assert.equal(
      backoffDelay(0, p, () => 0),
      125,
    );
  });
});

describe("JWT payload and pagination", () => {
  test("decodes UTF-8 claims without verifying; garbage is null", () => {
    assert.deepEqual(decodeJwtPayload(jwt({ name: "Zoë Ångström", exp: 5 })), { name: "Zoë Ångström", exp: 5 });
    assert.equal(decodeJwtPayload("not-a-jwt"), null);
    assert.equal(decodeJwtPayload("a.%%%.c"), null);
    assert.equal(decodeJwtPayload(`a.${Buffer.from("[1]").toString("base64url")}.c`), null);
  });

  test("walks cursors lazily and stops when a server repeats a cursor", async () => {
    const pages: Record<string, { items: number[]; next: string | null }> = {
      start: { items: [1, 2], next: "c2" },
      c2: { items: [3], next: "c3" },
      c3: { items: [4], next: null },
    };
    const asked: string[] = [];
    const all: number[] = [];
    for await (const n of paginate(async (cursor) => {
      asked.push(cursor ?? "start");
      return pages[cursor ?? "start"]!;
    })) {
      all.push(n);
      if (n === 3) break;
    }
    assert.deepEqual(all, [1, 2, 3]);
    assert.deepEqual(asked, ["start", "c2"], "the third page was never fetched");
    const looping = paginate(async () => ({ items: [1], next: "same" }));
    await assert.rejects(
      (async () => {
        for await (const _ of looping);
      })(),
      HirebridgeError,
    );
  });
});
