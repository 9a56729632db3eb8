import { createHmac, randomBytes } from "node:crypto";

/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com, "Signature scheme"): HMAC-SHA256
 * keyed with the secret's bytes over `{webhook-id}.{webhook-timestamp}.{body}`, sent as
 * `v1,<base64>`; during a rotation's overlap the header carries one signature per secret,
 * space-separated, and a receiver accepts the delivery when any of them verifies.
 */
const PREFIX = "whsec_";

/** A new secret: `whsec_` + base64 of 32 random bytes (the spec asks for 24 to 64). */
export const newSecret = (): string => `${PREFIX}${randomBytes(32).toString("base64")}`;

const keys = new Map<string, Buffer>();

/** The key bytes of a secret (memoised: every delivery of an endpoint signs with the same few). */
function keyOf(secret: string): Buffer {
  let key = keys.get(secret);
  if (!key) {
    if (keys.size > 10_000) keys.clear();
    key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, "base64");
    keys.set(secret, key);
  }
  return key;
}

/** The `webhook-signature` header of `body` for message `id` at `timestamp` (Unix seconds), one signature per secret. */
export function signatureHeader(secrets: readonly string[], id: string, timestamp: number, body: string): string {
  const content = `${id}.${timestamp}.${body}`;
  return secrets.map((s) => `v1,${createHmac("sha256", keyOf(s)).update(content).digest("base64")}`).join(" ");
}
