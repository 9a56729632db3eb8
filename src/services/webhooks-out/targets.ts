import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";

/**
 * Which addresses an endpoint may be delivered to (WEBHOOK_TARGETS). `public`: HTTPS to public
 * unicast addresses only (production: no loopback, private, link-local, carrier-grade NAT, unique
 * local, metadata or special-purpose address, nor an IPv6 form that embeds one); `loopback`: also
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

/**
 * Why `address` may not be connected to under `policy`, or null when it may. ipaddr.js names the
 * range (IPv4-mapped IPv6 addresses are judged as the IPv4 address they carry); only `unicast`
 * (the public internet) passes, and `loopback` where the policy allows it. The cloud metadata
 * services sit in ranges refused here: 169.254.169.254 (link-local), fd00:ec2::254 (unique
 * local), 100.100.100.200 (carrier-grade NAT).
 */
export function refusedAddress(address: string, policy: TargetPolicy): string | null {
  if (policy === "any") return null;
  let range: string;
  try {
    range = ipaddr.process(address.replace(/^\[|\]$/g, "")).range();
  } catch {
    return `${address} is not an IP address`;
  }
  if (range === "unicast" || (range === "loopback" && policy === "loopback")) return null;
  return `${address} is a ${range} address`;
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
