import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";

/**
 * Which addresses an endpoint may be delivered to (WEBHOOK_TARGETS). `public`: HTTPS to public
 * unicast addresses only (production: no loopback, private, link-local, carrier-grade NAT, unique
 * local, metadata, reserved, deprecated or special-purpose address, nor an IPv6 form that embeds
 * one, judged as the IPv4 address it carries); `loopback`: also
 * http and loopback addresses, so a developer receives on their own machine (the embedded
 * default); `any`: no check (a private network where every address is a customer's).
 */
export type TargetPolicy = "public" | "loopback" | "any";

/** The policy in force: the variable, else `loopback` on the embedded default (no DATABASE_URL), else `public`. */
export const targetPolicyOf = (config: { WEBHOOK_TARGETS?: TargetPolicy | undefined; DATABASE_URL?: string | undefined }): TargetPolicy =>
  config.WEBHOOK_TARGETS ?? (config.DATABASE_URL ? "public" : "loopback");

/** A connection refused because of the address it would reach. */
export class RefusedAddressError extends Error {
  override name = "RefusedAddressError";
  readonly code = "EADDRREFUSED";
}

/** An IPv4 address from two 16-bit groups of an IPv6 address. */
const ipv4Of = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 255, lo >> 8, lo & 255]);

/** The IPv6 forms that carry an IPv4 address, and whether a connection to one reaches that address. */
type Carrier = { form: string; ipv4: ipaddr.IPv4 | null; reachesIt: boolean };

/**
 * The IPv4 address an IPv6 address carries, by the form it has, or null for none. Mapped and NAT64
 * addresses reach the IPv4 address itself (a dual-stack socket, a DNS64/NAT64 network); the other
 * forms are deprecated (IPv4-compatible, RFC 4291; 6to4, RFC 7526; the translated form of RFC
 * 6145) or a tunnel through a relay (Teredo), and no receiver needs them. A local-use NAT64
 * address (64:ff9b:1::/48, RFC 8215) is read as a /96 prefix, the only one whose IPv4 address is
 * its last 32 bits; any other is refused, since where its IPv4 address sits cannot be known.
 */
function carriedIPv4(v6: ipaddr.IPv6): Carrier | null {
  const p = v6.parts;
  const zeroes = (from: number, to: number) => p.slice(from, to).every((x) => x === 0);
  const last = ipv4Of(p[6]!, p[7]!);
  if (zeroes(0, 5) && p[5] === 0xffff) return { form: "IPv4-mapped", ipv4: last, reachesIt: true };
  if (zeroes(0, 4) && p[4] === 0xffff && p[5] === 0) return { form: "IPv4-translated", ipv4: last, reachesIt: false };
  // :: and ::1 are the unspecified and loopback addresses, not IPv4-compatible ones.
  if (zeroes(0, 6) && !(p[6] === 0 && p[7]! <= 1)) return { form: "IPv4-compatible", ipv4: last, reachesIt: false };
  if (p[0] === 0x64 && p[1] === 0xff9b && zeroes(2, 6)) return { form: "NAT64", ipv4: last, reachesIt: true };
  if (p[0] === 0x64 && p[1] === 0xff9b && p[2] === 1) {
    return zeroes(3, 6) ? { form: "NAT64", ipv4: last, reachesIt: true } : { form: "local-use NAT64", ipv4: null, reachesIt: false };
  }
  if (p[0] === 0x2002) return { form: "6to4", ipv4: ipv4Of(p[1]!, p[2]!), reachesIt: false };
  // Teredo (2001::/32): the client's address is the low 32 bits, inverted (RFC 4380).
  if (p[0] === 0x2001 && p[1] === 0) return { form: "Teredo", ipv4: ipv4Of(~p[6]! & 0xffff, ~p[7]! & 0xffff), reachesIt: false };
  return null;
}

/** 2000::/3, the only IPv6 space IANA allocates for global unicast; the rest is reserved. */
const GLOBAL_UNICAST: [ipaddr.IPv6, number] = [ipaddr.IPv6.parse("2000::"), 3];

/** The range that refuses `ip` under `policy` (ipaddr.js's name for it), or null. */
function refusedRange(ip: ipaddr.IPv4 | ipaddr.IPv6, policy: TargetPolicy): string | null {
  const range = ip.range();
  if (range === "loopback" && policy === "loopback") return null;
  if (range !== "unicast") return range;
  return ip.kind() === "ipv6" && !(ip as ipaddr.IPv6).match(GLOBAL_UNICAST) ? "reserved" : null;
}

/**
 * The address as a connection reaches it. An IPv6 address is read the way the URL parser and the
 * system read it: ipaddr.js alone takes `::127.0.0.1` for the IPv4-mapped `::ffff:127.0.0.1`, while
 * it is the IPv4-compatible `::7f00:1`. A zone (`%eth0`) does not change the range.
 */
function parseAddress(address: string): ipaddr.IPv4 | ipaddr.IPv6 {
  const bare = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  if (!bare.includes(":")) return ipaddr.parse(bare);
  return ipaddr.IPv6.parse(new URL(`http://[${bare}]/`).hostname.slice(1, -1));
}

/**
 * Why `address` may not be connected to under `policy`, or null when it may. ipaddr.js names the
 * range; only `unicast` (the public internet; for IPv6, inside 2000::/3) passes, and `loopback`
 * where the policy allows it. An IPv6 address that carries an IPv4 address (carriedIPv4) is judged
 * as that address, and refused as well when its form does not reach it. The cloud metadata
 * services sit in ranges refused here: 169.254.169.254 (link-local), fd00:ec2::254 (unique
 * local), 100.100.100.200 (carrier-grade NAT).
 */
export function refusedAddress(address: string, policy: TargetPolicy): string | null {
  if (policy === "any") return null;
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    ip = parseAddress(address);
  } catch {
    return `${address} is not an IP address`;
  }
  const carrier = ip.kind() === "ipv6" ? carriedIPv4(ip as ipaddr.IPv6) : null;
  if (!carrier) {
    const range = refusedRange(ip, policy);
    return range ? `${address} is a ${range} address` : null;
  }
  const form = `${/^[aeiou]/i.test(carrier.form) ? "an" : "a"} ${carrier.form}`;
  if (!carrier.ipv4) return `${address} is ${form} address`;
  const range = refusedRange(carrier.ipv4, policy);
  if (range) return `${address} is ${form} address of ${carrier.ipv4.toString()}, a ${range} address`;
  return carrier.reachesIt ? null : `${address} is ${form} address, a deprecated or tunnelled form`;
}

export type Resolve = (hostname: string) => Promise<LookupAddress[]>;

/** Every address the host name resolves to (the system resolver, as connections use it). */
export const systemResolve: Resolve = (hostname) =>
  new Promise((resolve, reject) => dnsLookup(hostname, { all: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))));

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net/tls.connect that answers only the addresses the policy allows, so a host
 * name that resolves (or re-resolves, DNS rebinding) to a refused address is never connected to.
 * Each connection resolves anew: the check is on the address the socket is given, not on an
 * answer cached at creation.
 */
export function guardedLookup(policy: TargetPolicy, resolve: Resolve = systemResolve) {
  return (hostname: string, options: { all?: boolean }, callback: LookupCallback): void => {
    resolve(hostname).then(
      (addresses) => {
        const allowed = addresses.filter((a) => refusedAddress(a.address, policy) === null);
        const first = allowed[0];
        if (!first) {
          const reasons = addresses.map((a) => refusedAddress(a.address, policy)).join("; ");
          callback(new RefusedAddressError(`refused: ${hostname} resolves to no allowed address (${reasons || "none"})`), []);
        } else if (options.all) callback(null, allowed);
        else callback(null, first.address, first.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, []),
    );
  };
}

/**
 * Checks an endpoint URL when it is created or changed: a clear reason when it is refused, else
 * null. Its host's addresses are resolved now and each must be allowed (delivery checks again,
 * on every connection).
 */
export async function refusedUrl(raw: string, policy: TargetPolicy, resolve: Resolve = systemResolve): Promise<string | null> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "Not a valid URL";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return "The URL must start with https:// (or http://)";
  if (url.protocol === "http:" && policy === "public") return "The URL must use https://";
  if (url.username || url.password) return "The URL must not carry a user name or password";
  if (url.hash) return "The URL must not have a fragment (#…)";
  if (policy === "any") return null;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(host)) {
    const why = refusedAddress(host, policy);
    return why ? `Refused target: ${why}` : null;
  }
  let addresses: LookupAddress[];
  try {
    addresses = await resolve(host);
  } catch {
    return `The host ${host} does not resolve`;
  }
  for (const a of addresses) {
    const why = refusedAddress(a.address, policy);
    if (why) return `Refused target: ${host} resolves to ${why.replace(/^\S+ is /, `${a.address}, `)}`;
  }
  return addresses.length ? null : `The host ${host} does not resolve`;
}
