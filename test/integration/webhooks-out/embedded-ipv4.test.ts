import assert from "node:assert/strict";
import { test } from "node:test";
import type { WebhookEndpoint, WebhookEndpointList } from "../../../src/contracts/webhooks-out/endpoints.js";
import type { Resolve } from "../../../src/services/webhooks-out/targets.js";
import { describeEachDatabase } from "../../helpers/db.js";
import { useWebhooksApi } from "./harness.js";

/** DNS answers in IPv6 forms that carry an IPv4 address (a DNS64 resolver, a poisoned record). */
const dns: Resolve = async (host) => {
  const table: Record<string, string> = {
    "dns64.example.com": "64:ff9b::5db8:d822", // 93.184.216.34 through NAT64
    "dns64-metadata.example.com": "64:ff9b::a9fe:a9fe", // 169.254.169.254 through NAT64
    "compat.example.com": "::7f00:1", // IPv4-compatible 127.0.0.1
  };
  const address = table[host];
  if (!address) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
  return [{ address, family: 6 }];
};

/**
 * Issue 38, defect 5, over real HTTP: in production mode an endpoint whose address is an IPv6 form
 * carrying a refused IPv4 address (IPv4-compatible, mapped, NAT64, 6to4, Teredo) is 422 at the
 * field, on creation and on a change of URL; nothing is stored.
 */
describeEachDatabase("webhook endpoints on IPv6 forms of IPv4 addresses", (getDb) => {
  const api = useWebhooksApi(getDb, { config: { WEBHOOK_TARGETS: "public" }, resolve: dns });

  test("IPv4-compatible, mapped, NAT64, 6to4 and Teredo spellings of internal addresses are refused", async () => {
    const me = await api().login();
    const refused: Record<string, RegExp> = {
      "https://[::127.0.0.1]/": /::7f00:1 is an IPv4-compatible address of 127\.0\.0\.1, a loopback address/,
      "https://[::7f00:1]/x": /127\.0\.0\.1, a loopback address/,
      "https://[::10.0.0.1]/x": /10\.0\.0\.1, a private address/,
      "https://[::ffff:169.254.169.254]/latest/meta-data": /169\.254\.169\.254, a linkLocal address/,
      "https://[64:ff9b::127.0.0.1]/x": /NAT64 address of 127\.0\.0\.1, a loopback address/,
      "https://[64:ff9b:1::a00:1]/x": /NAT64 address of 10\.0\.0\.1, a private address/,
      "https://[2002:a9fe:a9fe::1]/x": /6to4 address of 169\.254\.169\.254/,
      "https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/x": /Teredo address of 127\.0\.0\.1/,
      "https://[::93.184.216.34]/x": /IPv4-compatible address, a deprecated or tunnelled form/,
      "https://[2001:db8::1]/x": /reserved/,
      "https://dns64-metadata.example.com/x": /resolves to 64:ff9b::a9fe:a9fe, a NAT64 address of 169\.254\.169\.254, a linkLocal address/,
      "https://compat.example.com/x": /resolves to ::7f00:1, an IPv4-compatible address of 127\.0\.0\.1/,
    };
    for (const [url, why] of Object.entries(refused)) {
      const res = await me.org<{ detail: { loc: string[]; msg: string; type: string }[] }>("POST", "/webhook-endpoints", { url });
      assert.equal(res.status, 422, url);
      assert.deepEqual(res.body.detail[0]?.loc, ["body", "url"], url);
      assert.match(res.body.detail[0]!.msg, why, url);
    }
    assert.deepEqual((await me.org<WebhookEndpointList>("GET", "/webhook-endpoints")).body.items, [], "nothing was stored");

    const ok = await me.org<WebhookEndpoint>("POST", "/webhook-endpoints", { url: "https://dns64.example.com/x" });
    assert.equal(ok.status, 200, "a DNS64 answer for a public host is a public target");
    const moved = await me.org<{ detail: { msg: string }[] }>("PATCH", `/webhook-endpoints/${ok.body.id}`, {
      url: "https://[::ffff:7f00:1]/x",
    });
    assert.equal(moved.status, 422, "a change of URL is judged the same way");
    assert.match(moved.body.detail[0]!.msg, /IPv4-mapped address of 127\.0\.0\.1, a loopback address/);
    const kept = await me.org<WebhookEndpoint>("GET", `/webhook-endpoints/${ok.body.id}`);
    assert.equal(kept.body.url, "https://dns64.example.com/x");
  });
});
