import type { IncomingHttpHeaders } from "node:http";

/**
 * What may cross the proxy in each direction. Requests to the upstream are built from an allowlist
 * (nothing of the caller's headers is copied, so its `Authorization` can never leak upstream);
 * upstream response headers pass through a denylist: hop-by-hop headers (RFC 9110 §7.6.1, plus any
 * the upstream names in `Connection`), CORS and cookies (the proxy is not the upstream's origin),
 * and headers the proxy sets itself.
 */
const RESPONSE_DENYLIST = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "set-cookie",
  "www-authenticate",
  "authorization",
  "server",
  "x-powered-by",
  "date",
  "x-request-id",
  "alt-svc",
  "strict-transport-security",
]);

/** Upstream response headers that are safe and useful to pass back to the caller. */
export function filterResponseHeaders(headers: IncomingHttpHeaders, secret: string): Record<string, string> {
  const connection = headers.connection;
  // `keep-alive`, what nearly every answer says, names only a header the denylist drops anyway.
  const named =
    connection && connection !== "keep-alive"
      ? new Set(
          String(connection)
            .split(",")
            .map((h) => h.trim().toLowerCase())
            .filter(Boolean),
        )
      : undefined;
  const out: Record<string, string> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined) continue;
    const key = name.toLowerCase();
    if (RESPONSE_DENYLIST.has(key) || named?.has(key) || key.startsWith("access-control-")) continue;
    const text = Array.isArray(value) ? value.join(", ") : value;
    // Defence in depth: an upstream that echoed the service's key must not hand it to callers.
    if (secret && text.includes(secret)) continue;
    out[key] = text;
  }
  return out;
}

export const USER_AGENT = "hirebridge-proxy/1.0";

/** The headers of one upstream request, except the API key (the upstream client adds it). */
export function upstreamRequestHeaders(opts: {
  requestId: string;
  integrationId?: string | undefined;
  hasBody: boolean;
}): Record<string, string> {
  const headers: Record<string, string> = {
    accept: "application/json",
    "user-agent": USER_AGENT,
    "x-request-id": opts.requestId,
  };
  if (opts.integrationId !== undefined) headers["x-integration-id"] = opts.integrationId;
  if (opts.hasBody) headers["content-type"] = "application/json";
  return headers;
}
