import assert from "node:assert/strict";
import { test } from "node:test";
import { guardedLookup, refusedAddress, refusedUrl, type Resolve } from "../../../src/services/webhooks-out/targets.js";

/**
 * Issue 38, defect 5: an address is judged after it is normalised. Each row: a spelling, and what
 * the public policy (production) says: null when it may be delivered to, else a pattern of the
 * reason. IPv6 forms that carry an IPv4 address are judged as that address.
 */
const PUBLIC: [string, RegExp | null][] = [
  // IPv4, public and special-purpose
  ["93.184.216.34", null],
  ["8.8.8.8", null],
  ["1.1.1.1", null],
  ["127.0.0.1", /loopback/],
  ["127.255.255.254", /loopback/],
  ["10.0.0.1", /private/],
  ["172.16.0.1", /private/],
  ["172.31.255.255", /private/],
  ["192.168.1.1", /private/],
  ["169.254.169.254", /linkLocal/],
  ["100.64.0.1", /carrierGradeNat/],
  ["100.100.100.200", /carrierGradeNat/],
  ["0.0.0.0", /unspecified/],
  ["0.1.2.3", /unspecified/],
  ["255.255.255.255", /broadcast/],
  ["224.0.0.1", /multicast/],
  ["239.255.255.250", /multicast/],
  ["192.0.0.8", /reserved/],
  ["192.0.2.1", /reserved/],
  ["198.18.0.1", /reserved/],
  ["198.51.100.7", /reserved/],
  ["203.0.113.9", /reserved/],
  ["192.88.99.1", /reserved/],
  ["240.0.0.1", /reserved/],
  // IPv4 in the other spellings inet_aton accepts
  ["0x7f.0.0.1", /loopback/],
  ["0177.0.0.1", /loopback/],
  ["2130706433", /loopback/],
  ["0x7f000001", /loopback/],
  ["127.1", /loopback/],
  // IPv6, plain
  ["2606:2800:220:1:248:1893:25c8:1946", null],
  ["2a00:1450:4001:830::200e", null],
  ["::1", /loopback/],
  ["0:0:0:0:0:0:0:1", /loopback/],
  ["::", /unspecified/],
  ["fe80::1", /linkLocal/],
  ["fe80::1%eth0", /linkLocal/],
  ["fd00:ec2::254", /uniqueLocal/],
  ["fc00::1", /uniqueLocal/],
  ["fec0::1", /deprecatedSiteLocal/],
  ["ff02::1", /multicast/],
  ["100::1", /discard/],
  ["2001:db8::1", /reserved/],
  ["3fff::1", /reserved/],
  ["2001:10::1", /deprecatedOrchid/],
  ["2001:2::1", /benchmarking/],
  ["5f00::1", /segmentRouting/],
  ["4000::1", /reserved/],
  ["1234::1", /reserved/],
  ["[::1]", /loopback/],
  // IPv4-mapped: the IPv4 address itself
  ["::ffff:127.0.0.1", /IPv4-mapped address of 127\.0\.0\.1, a loopback address/],
  ["::ffff:7f00:1", /127\.0\.0\.1, a loopback/],
  ["0:0:0:0:0:ffff:7f00:0001", /127\.0\.0\.1, a loopback/],
  ["::FFFF:10.0.0.1", /10\.0\.0\.1, a private/],
  ["::ffff:169.254.169.254", /169\.254\.169\.254, a linkLocal/],
  ["::ffff:0.0.0.0", /unspecified/],
  ["::ffff:93.184.216.34", null],
  // IPv4-compatible (deprecated): the defect's own spelling
  ["::127.0.0.1", /IPv4-compatible address of 127\.0\.0\.1, a loopback address/],
  ["::7f00:1", /127\.0\.0\.1, a loopback/],
  ["::10.0.0.1", /10\.0\.0\.1, a private/],
  ["::169.254.169.254", /linkLocal/],
  ["::0.0.0.2", /unspecified/],
  ["::93.184.216.34", /IPv4-compatible address, a deprecated or tunnelled form/],
  // IPv4-translated (RFC 6145)
  ["::ffff:0:127.0.0.1", /IPv4-translated address of 127\.0\.0\.1, a loopback/],
  ["::ffff:0:93.184.216.34", /deprecated or tunnelled/],
  // NAT64, well-known prefix and local-use /96: reaches the IPv4 address
  ["64:ff9b::127.0.0.1", /NAT64 address of 127\.0\.0\.1, a loopback/],
  ["64:ff9b::a00:1", /10\.0\.0\.1, a private/],
  ["64:ff9b::169.254.169.254", /linkLocal/],
  ["64:ff9b::93.184.216.34", null],
  ["64:ff9b:1::10.0.0.1", /10\.0\.0\.1, a private/],
  ["64:ff9b:1::93.184.216.34", null],
  ["64:ff9b:1:7f00:1::", /local-use NAT64 address/],
  // 6to4 (deprecated): the IPv4 address in bits 16-47
  ["2002:7f00:1::", /6to4 address of 127\.0\.0\.1, a loopback/],
  ["2002:a00:1::1", /10\.0\.0\.1, a private/],
  ["2002:a9fe:a9fe::1", /169\.254\.169\.254, a linkLocal/],
  ["2002:5db8:d822::1", /6to4 address, a deprecated or tunnelled form/],
  // Teredo: the client's address is the inverted low 32 bits
  ["2001:0:4136:e378:8000:63bf:80ff:fffe", /Teredo address of 127\.0\.0\.1, a loopback/],
  ["2001:0:4136:e378:8000:63bf:f5ff:fffe", /10\.0\.0\.1, a private/],
  ["2001:0:4136:e378:8000:63bf:a247:27dd", /Teredo address, a deprecated or tunnelled form/],
  // not addresses
  ["example.com", /not an IP address/],
  ["127.0.0.1.5", /not an IP address/],
];

test(`${PUBLIC.length} spellings judged under the public policy after normalising`, () => {
  assert.ok(PUBLIC.length >= 60);
  for (const [address, expected] of PUBLIC) {
    const why = refusedAddress(address, "public");
    if (expected === null) assert.equal(why, null, `${address} may be delivered to`);
    else assert.match(why ?? "(allowed)", expected, address);
  }
});

test("the loopback policy allows loopback in every form that reaches it, and nothing private", () => {
  for (const a of ["127.0.0.1", "::1", "::ffff:127.0.0.1", "64:ff9b::127.0.0.1", "93.184.216.34"]) {
    assert.equal(refusedAddress(a, "loopback"), null, a);
  }
  for (const a of ["10.0.0.1", "::ffff:10.0.0.1", "64:ff9b::a00:1", "2002:a00:1::1", "::127.0.0.1", "fd00::1", "4000::1"]) {
    assert.ok(refusedAddress(a, "loopback"), a);
  }
  for (const [a] of PUBLIC) assert.equal(refusedAddress(a, "any"), null, `${a} under any`);
});

test("endpoint URLs: the host as the URL parser normalises it is judged the same way", async () => {
  const dns: Resolve = async (host) => {
    const table: Record<string, string[]> = {
      "dns64.example.com": ["64:ff9b::5db8:d822"],
      "dns64-inside.example.com": ["64:ff9b::a9fe:a9fe"],
      "mapped.example.com": ["::ffff:10.1.2.3"],
    };
    return (table[host] ?? []).map((address) => ({ address, family: 6 }));
  };
  const refused: [string, RegExp][] = [
    ["https://[::127.0.0.1]/", /Refused target: ::7f00:1 is an IPv4-compatible address of 127\.0\.0\.1, a loopback address/],
    ["https://[0:0:0:0:0:0:127.0.0.1]/", /127\.0\.0\.1, a loopback/],
    ["https://[::ffff:127.0.0.1]/", /127\.0\.0\.1, a loopback/],
    ["https://[64:ff9b::7f00:1]/", /NAT64 address of 127\.0\.0\.1/],
    ["https://[2002:7f00:1::]/", /6to4 address of 127\.0\.0\.1/],
    ["https://0x7f000001/", /127\.0\.0\.1 is a loopback/],
    ["https://2130706433/", /127\.0\.0\.1 is a loopback/],
    ["https://0177.1/", /127\.0\.0\.1 is a loopback/],
    ["https://dns64-inside.example.com/", /resolves to 64:ff9b::a9fe:a9fe, a NAT64 address of 169\.254\.169\.254, a linkLocal address/],
    ["https://mapped.example.com/", /10\.1\.2\.3, a private/],
  ];
  for (const [url, why] of refused) assert.match((await refusedUrl(url, "public", dns)) ?? "(allowed)", why, url);
  assert.equal(await refusedUrl("https://dns64.example.com/", "public", dns), null, "DNS64 answers for public hosts are delivered to");
});

test("at delivery the lookup drops every resolved address that carries a refused IPv4 address", async () => {
  const lookup = guardedLookup("public", async () => [
    { address: "::ffff:127.0.0.1", family: 6 },
    { address: "::127.0.0.1", family: 6 },
    { address: "64:ff9b::a00:1", family: 6 },
  ]);
  const err = await new Promise<NodeJS.ErrnoException | null>((resolve) => lookup("h.test", { all: true }, (e) => resolve(e)));
  assert.equal(err?.name, "RefusedAddressError");
  assert.match(err!.message, /::127\.0\.0\.1 is an IPv4-compatible address of 127\.0\.0\.1/);
  const ok = guardedLookup("public", async () => [
    { address: "64:ff9b::a00:1", family: 6 },
    { address: "64:ff9b::5db8:d822", family: 6 },
  ]);
  const chosen = await new Promise<string>((resolve) => ok("h.test", {}, (_e, address) => resolve(String(address))));
  assert.equal(chosen, "64:ff9b::5db8:d822");
});
