import { ConfigurationError } from "./errors.js";

/**
 * Credentials and bearer tokens travel to every base URL the client is given, so each must be
 * HTTPS; plain HTTP is accepted only for loopback hosts (local development and tests), where the
 * traffic never leaves the machine.
 */
export function requireSecureBaseUrl(value: string, what: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigurationError(`${what} is not a valid URL`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new ConfigurationError(`${what} must be an https:// URL`);
  }
  if (url.protocol === "http:" && !isLoopbackHost(url.hostname)) {
    throw new ConfigurationError(`${what} must use https:// (plain http is only allowed for loopback hosts)`);
  }
  if (url.username || url.password) throw new ConfigurationError(`${what} must not contain credentials`);
  if (url.search || url.hash) throw new ConfigurationError(`${what} must not have a query or fragment`);
  return url.href.replace(/\/+$/, "");
}

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, "");
  if (host === "localhost" || host.endsWith(".localhost")) return true; // RFC 6761 §6.3
  if (host === "::1") return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

export type QueryValue = string | number | boolean | null | undefined | readonly (string | number)[];
export type Query = Record<string, QueryValue>;

/**
 * `base` + `path` + query. Absent (undefined/null) parameters are left out; arrays become the
 * comma-separated lists the proxy's filters take.
 */
export function buildUrl(base: string, path: string, query?: Query): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null) continue;
    search.append(key, Array.isArray(value) ? value.join(",") : String(value));
  }
  const qs = search.toString();
  return `${base}${path}${qs ? `?${qs}` : ""}`;
}

/** Template tag that percent-encodes every interpolated path segment. */
export function path(strings: TemplateStringsArray, ...segments: (string | number)[]): string {
  return strings.reduce((out, part, i) => out + part + (i < segments.length ? encodeURIComponent(String(segments[i])) : ""), "");
}
