import { createHmac } from "node:crypto";

/**
 * The upstream's webhook signature: HMAC-SHA256 of the raw body keyed with the webhook secret,
 * base64url without padding (43 characters), sent as `X-Kombo-Signature` (and `X-Upstream-Signature`).
 * One signer for both sides of the wire: the sandbox signs with it, the receivers verify with it.
 */
export function signWebhookBody(rawBody: string | Buffer, secret: string): string {
  return createHmac("sha256", secret).update(rawBody).digest("base64url");
}
