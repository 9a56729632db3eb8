import { createHmac } from "node:crypto";

/**
 * The upstream's webhook signature: HMAC-SHA256 of the raw body keyed with the webhook secret,
 * base64url without padding (43 characters). Sent as `X-Kombo-Signature` and `X-Upstream-Signature`.
 */
export function signWebhookBody(rawBody: string | Buffer, secret: string): string {
  return createHmac("sha256", secret).update(rawBody).digest("base64url");
}
