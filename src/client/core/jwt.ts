/**
 * Reads a JWT's payload WITHOUT verifying it. The client only needs the expiry instant (`exp`) and
 * a few informational claims of tokens it just received from its own token endpoint over TLS; the
 * APIs verify signatures. Never use this to make an authorization decision.
 */
export type JwtClaims = Record<string, unknown> & { exp?: number; iat?: number; org_id?: string };

export function decodeJwtPayload(token: string): JwtClaims | null {
  const parts = token.split(".");
  if (parts.length !== 3 || !parts[1]) return null;
  try {
    const json = new TextDecoder().decode(base64UrlDecode(parts[1]));
    const payload: unknown = JSON.parse(json);
    return payload !== null && typeof payload === "object" && !Array.isArray(payload) ? (payload as JwtClaims) : null;
  } catch {
    return null;
  }
}

/** Seconds-since-epoch claim as milliseconds, or null when absent or not a finite number. */
export function claimMillis(claims: JwtClaims | null, name: "exp" | "iat"): number | null {
  const value = claims?.[name];
  return typeof value === "number" && Number.isFinite(value) ? value * 1000 : null;
}

// atob exists in browsers and in Node 16+, so no Buffer (a Node-only global) is needed.
function base64UrlDecode(input: string): Uint8Array {
  const base64 = input
    .replace(/-/g, "+")
    .replace(/_/g, "/")
    .padEnd(Math.ceil(input.length / 4) * 4, "=");
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
